// Sandbox route for POST /fetch_api_key: a username and password traded for the API key.
import { endpoints } from "../../api/index.js";
import { publicRoute, type Route } from "../route.js";
import { authenticatePassword } from "../auth.js";
import { apiEmail } from "../emailVisibility.js";

export const authRoutes: Route[] = [
  publicRoute(endpoints.auth.fetchApiKey, ({ realm, params }) => {
    const user = authenticatePassword(realm, params.username, params.password);
    return { api_key: user.apiKey, email: apiEmail(realm, user), user_id: user.userId };
  }),
];
