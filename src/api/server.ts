// The server itself on the wire: GET /server_settings, readable without credentials.
import { z } from "zod";
import { endpoint } from "./endpoint.js";

export const settings = endpoint({
  method: "GET",
  path: "/server_settings",
  params: () => z.object({}),
  response: () =>
    z.looseObject({
      zulip_feature_level: z.number().int(),
      zulip_version: z.string(),
      zulip_merge_base: z.string().optional(),
      push_notifications_enabled: z.boolean().optional(),
      is_incompatible: z.boolean().optional(),
      email_auth_enabled: z.boolean().optional(),
      require_email_format_usernames: z.boolean().optional(),
      authentication_methods: z.record(z.string(), z.boolean()).optional(),
      realm_url: z.string().optional(),
      realm_name: z.string().optional(),
      realm_description: z.string().optional(),
    }),
  auth: "none",
});
export type ServerSettings = z.output<typeof settings.response>;

export const serverEndpoints = { settings } as const;
