// Sandbox routes for users: list, one user (by ID or email), own profile, create, update by email, and another user's status.
import { endpoints, ROLES } from "../../api/index.js";
import { publicRoute, route, type Route } from "../route.js";
import type { Realm } from "../realm.js";
import type { SandboxUser } from "../model.js";
import { notLoggedIn, realmDeactivated } from "../auth.js";
import { badRequest } from "../errors.js";
import { apiEmail, canSeeRealEmail, deliveryEmail, findUserByEmail } from "../emailVisibility.js";
import {
  activeOwners,
  hasPermission,
  isOwner,
  requireAdmin,
  requireOwner,
  roleFlags,
} from "../permissions.js";
import { checkProfileValue, profileDataView, setProfileValue } from "../profileFields.js";
import { notifyActiveUsers } from "../notify.js";
import { updateStatus } from "../status.js";
import { accessibleUserIds, canAccessUser, inaccessibleUserView } from "../userAccess.js";
import { avatarUrl } from "../avatar.js";

/** GET /users/me as `user` sees themselves. */
export function ownUserView(realm: Realm, user: SandboxUser) {
  return {
    user_id: user.userId,
    email: apiEmail(realm, user),
    delivery_email: user.email,
    full_name: user.fullName,
    avatar_url: avatarUrl(realm, user),
    avatar_version: user.avatarVersion,
    ...roleFlags(user),
    is_bot: user.isBot,
    is_active: user.isActive,
    role: user.role,
    timezone: user.timezone,
    date_joined: new Date(user.dateJoined).toISOString(),
    max_message_id: realm.messages.at(-1)?.id ?? -1,
    ...(user.isBot ? {} : { profile_data: profileDataView(realm, user) }),
  };
}

export interface UserViewOptions {
  /** `client_extavatar`: the client computes external-provider avatars itself (default true). */
  clientExtavatar?: boolean;
  includeCustomProfileFields?: boolean;
}

/** One element of GET /users `members`, as `viewer` (undefined: a visitor) sees `target`. */
export function userView(
  realm: Realm,
  viewer: SandboxUser | undefined,
  target: SandboxUser,
  options: UserViewOptions = {},
) {
  const computesAvatar =
    (options.clientExtavatar ?? true) && canSeeRealEmail(viewer, target) && !target.avatarUploaded;
  return {
    user_id: target.userId,
    delivery_email: deliveryEmail(viewer, target),
    email: apiEmail(realm, target),
    full_name: target.fullName,
    date_joined: new Date(target.dateJoined).toISOString(),
    is_active: target.isActive,
    ...roleFlags(target),
    is_bot: target.isBot,
    bot_type: target.botType,
    ...(target.isBot ? { bot_owner_id: target.botOwnerId } : {}),
    role: target.role,
    timezone: target.timezone,
    avatar_url: computesAvatar ? null : avatarUrl(realm, target),
    avatar_version: target.avatarVersion,
    ...(options.includeCustomProfileFields && !target.isBot
      ? { profile_data: profileDataView(realm, target) }
      : {}),
  };
}

/**
 * The organization's users as `viewer` sees them: `userView`, or "Unknown user" for a user a guest
 * may not see (the realm's `can_access_all_users_group`).
 */
export function usersAsSeenBy(
  realm: Realm,
  viewer: SandboxUser | undefined,
  targets: Iterable<SandboxUser>,
  options: UserViewOptions = {},
) {
  const accessible = accessibleUserIds(realm, viewer);
  return [...targets].map((u) =>
    !accessible || accessible.has(u.userId)
      ? userView(realm, viewer, u, options)
      : inaccessibleUserView(realm, u.userId),
  );
}

/** The organization's users, active or not, without system bots (which belong to no organization). */
export const realmMembers = (realm: Realm): SandboxUser[] =>
  [...realm.users.values()].filter((u) => !u.isSystemBot);

const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

/** What the server's `check_full_name` refuses inside a name (UserProfile.NAME_INVALID_CHARS). */
const NAME_INVALID_CHARS = /[*`\\>"@]/;

/**
 * The server's `check_full_name`: 1 to 100 characters after trimming, none of `*`, `` ` ``, `\`,
 * `>`, `"`, `@` nor control characters, and no `|<digits>` at the end (it would read as the
 * `@**Name|id**` mention syntax).
 */
function checkFullName(name: string): string {
  const trimmed = name.trim();
  if ([...trimmed].length > 100) throw badRequest("Name too long!");
  if (trimmed === "") throw badRequest("Name too short!");
  if (NAME_INVALID_CHARS.test(trimmed) || /\p{Cc}/u.test(trimmed))
    throw badRequest("Invalid characters in name!");
  if (/\|\d+$/.test(name)) throw badRequest("Invalid format!");
  return trimmed;
}

function checkNewEmail(realm: Realm, email: string, self?: SandboxUser): void {
  if (!EMAIL_SHAPE.test(email)) throw badRequest(`Invalid email address '${email}'`);
  const holder = realm.userByEmail(email);
  if (holder && holder !== self) throw badRequest("Email is already in use.");
}

/**
 * GET /users/{user_id} and GET /users/{email}: one user as `viewer` sees them; "No such user" for
 * none, "Insufficient permission" for one a guest may not see (the realm's user access).
 */
function oneUser(
  realm: Realm,
  viewer: SandboxUser,
  target: SandboxUser | undefined,
  params: { client_gravatar?: boolean; include_custom_profile_fields?: boolean },
) {
  if (!target) throw badRequest("No such user");
  if (!canAccessUser(realm, viewer, target)) throw badRequest("Insufficient permission");
  return {
    user: userView(realm, viewer, target, {
      clientExtavatar: params.client_gravatar,
      includeCustomProfileFields: params.include_custom_profile_fields,
    }),
  };
}

/** A `realm_user` update event about `target`, for everyone active. */
function announceUpdate(realm: Realm, target: SandboxUser, person: Record<string, unknown>): void {
  notifyActiveUsers(realm, () => ({
    type: "realm_user",
    op: "update",
    person: { user_id: target.userId, ...person },
  }));
}

export const userRoutes: Route[] = [
  route(endpoints.users.me, ({ realm, user }) => ownUserView(realm, user)),

  publicRoute(endpoints.users.list, ({ realm, user, params }) => {
    if (!user) {
      if (realm.deactivated) throw realmDeactivated();
      if (!realm.settings.enableSpectatorAccess) throw notLoggedIn();
    }
    const wanted = params.user_ids ? new Set(params.user_ids) : undefined;
    const options = {
      clientExtavatar: params.client_extavatar,
      includeCustomProfileFields: params.include_custom_profile_fields,
    };
    // The organization's users only: system bots (Notification Bot) live outside it, as on a real
    // server, which lists them in the registration's `cross_realm_bots` instead.
    const members = usersAsSeenBy(
      realm,
      user,
      realmMembers(realm).filter((u) => !wanted || wanted.has(u.userId)),
      options,
    );
    return { members };
  }),

  route(endpoints.users.get, ({ realm, user, params }) =>
    oneUser(realm, user, realm.users.get(params.user_id), params),
  ),

  route(endpoints.users.getByEmail, ({ realm, user, params }) =>
    oneUser(realm, user, findUserByEmail(realm, user, params.email), params),
  ),

  route(endpoints.users.create, ({ realm, user, params }) => {
    requireAdmin(user);
    if (!hasPermission(user, "can_create_users"))
      throw badRequest("User not authorized to create users");
    const email = params.email.trim();
    checkNewEmail(realm, email);
    const fullName = checkFullName(params.full_name);
    const created = realm.addUser({
      email,
      fullName,
      password: params.password,
      role: ROLES.member,
      isBot: false,
      botType: null,
      botOwnerId: null,
    });
    notifyActiveUsers(realm, (receiver) => ({
      type: "realm_user",
      op: "add",
      person: userView(realm, receiver, created, { includeCustomProfileFields: true }),
    }));
    return { user_id: created.userId };
  }),

  route(endpoints.users.updateByEmail, ({ realm, user, params }) => {
    requireAdmin(user);
    const target = findUserByEmail(realm, user, params.email);
    if (!target) throw badRequest("No such user");
    if (isOwner(target) && !isOwner(user)) throw badRequest("Must be an organization owner");

    // Check everything first so a refused request changes nothing.
    const fullName = params.full_name === undefined ? undefined : checkFullName(params.full_name);
    const role = params.role;
    if (role !== undefined && role !== target.role) {
      if (role === ROLES.owner || isOwner(target)) requireOwner(user);
      if (isOwner(target) && activeOwners(realm).length === 1)
        throw badRequest(
          "The owner permission cannot be removed from the only organization owner.",
        );
      if (target.role === ROLES.guest && role <= ROLES.administrator)
        throw badRequest("Guests cannot be organization administrators");
    }
    if (params.profile_data !== undefined) {
      if (target.isBot) throw badRequest("Custom profile fields are not available for bots");
      for (const item of params.profile_data) checkProfileValue(realm, item.id, item.value);
    }
    const newEmail = params.new_email?.trim();
    if (newEmail !== undefined) {
      requireOwner(user);
      if (!hasPermission(user, "can_change_user_emails"))
        throw badRequest("User not authorized to change user emails");
      checkNewEmail(realm, newEmail, target);
    }

    if (fullName !== undefined && fullName !== target.fullName) {
      target.fullName = fullName;
      announceUpdate(realm, target, { full_name: fullName });
    }
    if (role !== undefined && role !== target.role) {
      target.role = role;
      announceUpdate(realm, target, { role });
    }
    for (const item of params.profile_data ?? []) {
      setProfileValue(target, item.id, item.value);
      announceUpdate(realm, target, { custom_profile_field: { id: item.id, value: item.value } });
    }
    if (newEmail !== undefined && newEmail !== target.email) {
      target.email = newEmail;
      notifyActiveUsers(realm, (receiver) =>
        canSeeRealEmail(receiver, target)
          ? {
              type: "realm_user",
              op: "update",
              person: { user_id: target.userId, delivery_email: newEmail },
            }
          : undefined,
      );
      announceUpdate(realm, target, { new_email: apiEmail(realm, target) });
    }
    return {};
  }),

  route(endpoints.users.setStatus, ({ realm, user, params }) => {
    requireAdmin(user);
    const target = realm.users.get(params.user_id);
    if (!target) throw badRequest("No such user");
    const { user_id: _id, ...update } = params;
    const changed = updateStatus(realm, target.userId, update);
    notifyActiveUsers(realm, () => ({
      type: "user_status",
      user_id: target.userId,
      ...changed,
    }));
    return {};
  }),
];
