// Users on the wire: the user objects and the user endpoints (list, own profile, create, update, status).
import { z } from "zod";
import { endpoint } from "./endpoint.js";
import { emojiReactionType, role } from "./common.js";

export const profileData = z.record(
  z.string(),
  z.looseObject({ value: z.string(), rendered_value: z.string().optional() }),
);

/** An element of `members` in the user list. */
export const user = z.looseObject({
  user_id: z.number().int(),
  delivery_email: z.string().nullable(),
  email: z.string(),
  full_name: z.string(),
  date_joined: z.string(),
  is_active: z.boolean(),
  is_owner: z.boolean(),
  is_admin: z.boolean(),
  is_guest: z.boolean(),
  is_bot: z.boolean(),
  bot_type: z.number().int().nullable().optional(),
  bot_owner_id: z.number().int().nullable().optional(),
  role: z.union([role, z.number().int()]),
  timezone: z.string(),
  avatar_url: z.string().nullable().optional(),
  avatar_version: z.number().int().optional(),
  profile_data: profileData.optional(),
});
export type User = z.infer<typeof user>;

/** The requester's own profile, at the top level of GET /users/me. */
export const ownUser = z.looseObject({
  user_id: z.number().int(),
  email: z.string(),
  delivery_email: z.string(),
  full_name: z.string(),
  avatar_url: z.string().nullable().optional(),
  avatar_version: z.number().int().optional(),
  is_admin: z.boolean(),
  is_owner: z.boolean(),
  is_guest: z.boolean(),
  is_bot: z.boolean(),
  is_active: z.boolean(),
  role: z.union([role, z.number().int()]),
  timezone: z.string(),
  date_joined: z.string(),
  max_message_id: z.number().int().optional(),
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
      client_extavatar: z.boolean().optional(),
      include_custom_profile_fields: z.boolean().optional(),
      user_ids: z.array(z.number().int()).optional(),
    }),
  response: () => z.looseObject({ members: z.array(user) }),
  auth: "optional",
});

/** POST /users: administrators holding `can_create_users` create an account. */
export const create = endpoint({
  method: "POST",
  path: "/users",
  params: () => z.object({ email: z.string(), password: z.string(), full_name: z.string() }),
  response: () => z.looseObject({ user_id: z.number().int() }),
  idempotent: false,
});

/** One item of `profile_data` in a user update: a custom profile field ID and its new value. */
export const profileDataChange = z.object({ id: z.number().int(), value: z.string() });

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
      full_name: z.string().optional(),
      role: role.optional(),
      profile_data: z.array(profileDataChange).optional(),
      new_email: z.string().optional(),
    }),
  response: () => z.looseObject({}),
  idempotent: true,
});

/** The user status fields, as set by POST /users/{user_id}/status. */
export const statusChange = z.object({
  status_text: z.string().optional(),
  emoji_name: z.string().optional(),
  emoji_code: z.string().optional(),
  reaction_type: emojiReactionType.optional(),
});

/** POST /users/{user_id}/status: administrators set another user's status. */
export const setStatus = endpoint({
  method: "POST",
  path: "/users/{user_id}/status",
  params: () => statusChange.extend({ user_id: z.number().int() }),
  response: () => z.looseObject({}),
  idempotent: true,
});

/** `realm_user` event with `op: "add"`: a user joined; `person` is seen as the receiver sees it. */
export const realmUserAddEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("realm_user"),
  op: z.literal("add"),
  person: user,
});

/** `user_status` event: only the fields that changed are present. */
export const userStatusEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("user_status"),
  user_id: z.number().int(),
  status_text: z.string().optional(),
  emoji_name: z.string().optional(),
  emoji_code: z.string().optional(),
  reaction_type: z.string().optional(),
});

export const usersEndpoints = { me, list, create, updateByEmail, setStatus } as const;
