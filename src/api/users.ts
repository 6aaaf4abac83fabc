// Users on the wire: the user objects and the user endpoints (list, one user, own profile, create, update, status).
import { z } from "zod";
import { bool, int, optBool, optInt, optStr, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";
import { emojiReactionType, role } from "./common.js";

export const profileData = z.record(str, z.looseObject({ value: str, rendered_value: optStr }));

/** An element of `members` in the user list. */
export const user = z.looseObject({
  user_id: int,
  delivery_email: z.string().nullable(),
  email: str,
  full_name: str,
  date_joined: str,
  is_active: bool,
  is_owner: bool,
  is_admin: bool,
  is_guest: bool,
  is_bot: bool,
  bot_type: z.int().nullable().optional(),
  bot_owner_id: z.int().nullable().optional(),
  role: z.union([role, int]),
  timezone: str,
  avatar_url: z.string().nullable().optional(),
  avatar_version: optInt,
  profile_data: profileData.optional(),
});
export type User = z.infer<typeof user>;

/** The requester's own profile, at the top level of GET /users/me. */
export const ownUser = z.looseObject({
  user_id: int,
  email: str,
  delivery_email: str,
  full_name: str,
  avatar_url: z.string().nullable().optional(),
  avatar_version: optInt,
  is_admin: bool,
  is_owner: bool,
  is_guest: bool,
  is_bot: bool,
  is_active: bool,
  role: z.union([role, int]),
  timezone: str,
  date_joined: str,
  max_message_id: optInt,
  profile_data: profileData.optional(),
});
export type OwnUser = z.infer<typeof ownUser>;

/** GET /users/me: the requester's own profile. */
export const me = endpoint({
  method: "GET",
  path: "/users/me",
  params: () => z.object({}),
  response: () => ownUser,
});

/** GET /users: every user the requester may see; without credentials only on public realms. */
export const list = endpoint({
  method: "GET",
  path: "/users",
  params: () =>
    z.object({
      client_extavatar: optBool,
      include_custom_profile_fields: optBool,
      user_ids: z.array(int).optional(),
    }),
  response: () => z.looseObject({ members: z.array(user) }),
  auth: "optional",
});

/** The answer of GET /users/{user_id} and GET /users/{email}: one user, as the list shows it. */
const oneUser = () => z.looseObject({ user: user });

/** GET /users/{user_id}: one user of the organization (feature level 1). */
export const get = endpoint({
  method: "GET",
  path: "/users/{user_id}",
  params: () =>
    z.object({
      user_id: int,
      client_gravatar: optBool,
      include_custom_profile_fields: optBool,
    }),
  response: oneUser,
});

/**
 * GET /users/{email}: one user found by email (feature level 39): the real email when the
 * requester may see it, or the placeholder `user<id>@<realm_host>` of anyone.
 */
export const getByEmail = endpoint({
  method: "GET",
  path: "/users/{email}",
  params: () =>
    z.object({
      email: z.string().min(1),
      client_gravatar: optBool,
      include_custom_profile_fields: optBool,
    }),
  response: oneUser,
});

/** POST /users: administrators holding `can_create_users` create an account. */
export const create = endpoint({
  method: "POST",
  path: "/users",
  params: () => z.object({ email: str, password: str, full_name: str }),
  response: () => z.looseObject({ user_id: int }),
  idempotent: false,
});

/** One item of `profile_data` in a user update: a custom profile field ID and its new value. */
export const profileDataChange = z.object({ id: int, value: str });

/**
 * PATCH /users/{email}: administrators update another user, found by real email
 * (when the requester may see it) or by the placeholder `user<id>@<realm_host>`.
 */
export const updateByEmail = endpoint({
  method: "PATCH",
  path: "/users/{email}",
  params: () =>
    z.object({
      email: z.string().min(1),
      full_name: optStr,
      role: role.optional(),
      profile_data: z.array(profileDataChange).optional(),
      new_email: optStr,
    }),
  response: () => z.looseObject({}),
  idempotent: true,
});

/** The user status fields, as set by POST /users/{user_id}/status. */
export const statusChange = z.object({
  status_text: optStr,
  emoji_name: optStr,
  emoji_code: optStr,
  reaction_type: emojiReactionType.optional(),
});

/** POST /users/{user_id}/status: administrators set another user's status. */
export const setStatus = endpoint({
  method: "POST",
  path: "/users/{user_id}/status",
  params: () => statusChange.extend({ user_id: int }),
  response: () => z.looseObject({}),
  idempotent: true,
});

/** `realm_user` event with `op: "add"`: a user joined; `person` is seen as the receiver sees it. */
export const realmUserAddEvent = z.looseObject({
  id: int,
  type: z.literal("realm_user"),
  op: z.literal("add"),
  person: user,
});

/** `user_status` event: only the fields that changed are present. */
export const userStatusEvent = z.looseObject({
  id: int,
  type: z.literal("user_status"),
  user_id: int,
  status_text: optStr,
  emoji_name: optStr,
  emoji_code: optStr,
  reaction_type: optStr,
});

export const usersEndpoints = {
  me,
  list,
  get,
  getByEmail,
  create,
  updateByEmail,
  setStatus,
} as const;
