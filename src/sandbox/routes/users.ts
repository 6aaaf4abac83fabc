// Sandbox routes for users: GET /users/me and GET /users.
import { endpoints } from "../../api/index.js";
import { publicRoute, route, type Route } from "../route.js";
import type { Realm, SandboxUser } from "../realm.js";
import { notLoggedIn } from "../auth.js";

const roleFlags = (u: SandboxUser) => ({
  is_owner: u.role === 100,
  is_admin: u.role === 100 || u.role === 200,
  is_guest: u.role === 600,
});

/** GET /users/me as `user` sees themselves. */
export function ownUserView(realm: Realm, user: SandboxUser) {
  return {
    user_id: user.userId,
    email: user.email,
    delivery_email: user.email,
    full_name: user.fullName,
    avatar_url: null,
    avatar_version: 1,
    ...roleFlags(user),
    is_bot: user.isBot,
    is_active: user.isActive,
    role: user.role,
    timezone: user.timezone,
    date_joined: new Date(user.dateJoined).toISOString(),
    max_message_id: realm.messages.at(-1)?.id ?? -1,
  };
}

/** One element of GET /users `members`. */
export function userView(user: SandboxUser) {
  return {
    user_id: user.userId,
    delivery_email: user.email,
    email: user.email,
    full_name: user.fullName,
    date_joined: new Date(user.dateJoined).toISOString(),
    is_active: user.isActive,
    ...roleFlags(user),
    is_bot: user.isBot,
    bot_type: user.botType,
    bot_owner_id: user.botOwnerId,
    role: user.role,
    timezone: user.timezone,
    avatar_url: null,
    avatar_version: 1,
  };
}

export const userRoutes: Route[] = [
  route(endpoints.users.me, ({ realm, user }) => ownUserView(realm, user)),
  publicRoute(endpoints.users.list, ({ realm, user, params }) => {
    if (!user) throw notLoggedIn();
    const wanted = params.user_ids ? new Set(params.user_ids) : undefined;
    const members = [...realm.users.values()]
      .filter((u) => !wanted || wanted.has(u.userId))
      .map(userView);
    return { members };
  }),
];
