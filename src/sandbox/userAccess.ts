// The server's user access rule for guests (`can_access_all_users_group`): who a guest may see, and the "Unknown user" they see otherwise.
import type { Realm } from "./realm.js";
import type { SandboxUser } from "./model.js";
import { isGuest } from "./permissions.js";

/** The name a client is shown for a user it may not see (`UserProfile.INACCESSIBLE_USER_NAME`). */
export const INACCESSIBLE_USER_NAME = "Unknown user";

/**
 * The system groups the sandbox's group settings name, with the IDs `POST /register` gives them
 * (`realm_user_groups`): a real server numbers them per realm; clients resolve the ID by name.
 */
export const SYSTEM_GROUPS = [
  { id: 1, name: "role:everyone", description: "Everyone" },
  { id: 2, name: "role:members", description: "Members" },
] as const;

/** The ID of the system group `name` (see `SYSTEM_GROUPS`). */
export const systemGroupId = (name: (typeof SYSTEM_GROUPS)[number]["name"]): number =>
  SYSTEM_GROUPS.find((g) => g.name === name)!.id;

/**
 * Whether the realm limits what guests see of other users: `can_access_all_users_group` is not
 * `role:everyone` (the server's default is `role:everyone`: everyone sees everyone).
 */
export const guestAccessRestricted = (realm: Realm): boolean =>
  realm.settings.canAccessAllUsersGroup !== "role:everyone";

/**
 * The IDs of the users `viewer` may see, or `undefined` for everyone. As the server: a guest in a
 * restricted realm sees themselves, every bot, the active subscribers of the channels they are
 * subscribed to, and everyone they share a direct message (one-to-one or group) with. Everyone
 * else (visitors included) sees everyone.
 */
export function accessibleUserIds(
  realm: Realm,
  viewer: SandboxUser | undefined,
): ReadonlySet<number> | undefined {
  if (!viewer || !isGuest(viewer) || !guestAccessRestricted(realm)) return undefined;
  const seen = new Set<number>([viewer.userId]);
  for (const user of realm.users.values()) if (user.isBot) seen.add(user.userId);
  for (const channel of realm.channels.values()) {
    if (!channel.subscribers.has(viewer.userId)) continue;
    for (const id of channel.subscribers) if (realm.users.get(id)?.isActive) seen.add(id);
  }
  for (const message of realm.messages) {
    if (message.kind !== "private" || !message.recipients.includes(viewer.userId)) continue;
    for (const id of message.recipients) seen.add(id);
  }
  return seen;
}

/** Whether `viewer` (undefined: a visitor) may see `target`, by the rule of `accessibleUserIds`. */
export function canAccessUser(
  realm: Realm,
  viewer: SandboxUser | undefined,
  target: SandboxUser,
): boolean {
  return accessibleUserIds(realm, viewer)?.has(target.userId) ?? true;
}

/**
 * What a guest is shown in place of a user they may not see (the server's
 * `get_data_for_inaccessible_user`): the ID, "Unknown user", a placeholder email, a member's role.
 */
export function inaccessibleUserView(realm: Realm, userId: number) {
  return {
    user_id: userId,
    email: `user${userId}@${realm.settings.host}`,
    delivery_email: null,
    full_name: INACCESSIBLE_USER_NAME,
    date_joined: new Date(0).toISOString(),
    is_active: true,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    is_bot: false,
    role: 400,
    timezone: "",
    avatar_url: null,
    avatar_version: 1,
    profile_data: {},
  };
}
