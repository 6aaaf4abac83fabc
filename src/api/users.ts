// Users on the wire: the user objects and the user endpoints.
import { z } from "zod";
import { endpoint } from "./endpoint.js";
import { role } from "./common.js";

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

export const me = endpoint({
  method: "GET",
  path: "/users/me",
  params: z.object({}),
  response: ownUser,
});

export const list = endpoint({
  method: "GET",
  path: "/users",
  params: z.object({
    client_extavatar: z.boolean().optional(),
    include_custom_profile_fields: z.boolean().optional(),
    user_ids: z.array(z.number().int()).optional(),
  }),
  response: z.looseObject({ members: z.array(user) }),
  auth: "optional",
});

export const usersEndpoints = { me, list } as const;
