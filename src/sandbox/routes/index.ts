// Every sandbox route, in one list the request handler matches against.
import type { Route } from "../route.js";
import { authRoutes } from "./auth.js";
import { eventRoutes } from "./events.js";
import { messageRoutes } from "./messages.js";
import { navigationRoutes } from "./navigation.js";
import { pushRoutes } from "./push.js";
import { realmRoutes } from "./realm.js";
import { subscriptionPropertyRoutes } from "./subscription-properties.js";
import { userRoutes } from "./users.js";

export const routes: Route[] = [
  ...eventRoutes,
  ...messageRoutes,
  ...userRoutes,
  ...realmRoutes,
  ...subscriptionPropertyRoutes,
  ...navigationRoutes,
  ...pushRoutes,
  ...authRoutes,
];
