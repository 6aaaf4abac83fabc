// The server itself on the wire: GET /server_settings, readable without credentials.
import { z } from "zod";
import { bool, optBool, optStr, str } from "./leaves.js";
import { bothFeatureLevelNames, featureLevelFields } from "./names.js";
import { endpoint } from "./endpoint.js";

export const settings = endpoint({
  method: "GET",
  path: "/server_settings",
  params: () => z.object({}),
  response: () =>
    z
      .looseObject({
        // The contract's `service_feature_level`; real servers say `zulip_feature_level`.
        ...featureLevelFields,
        zulip_version: str,
        zulip_merge_base: optStr,
        push_notifications_enabled: optBool,
        is_incompatible: optBool,
        email_auth_enabled: optBool,
        require_email_format_usernames: optBool,
        authentication_methods: z.record(str, bool).optional(),
        realm_url: optStr,
        realm_name: optStr,
        realm_description: optStr,
      })
      .transform(bothFeatureLevelNames),
  auth: "none",
});
export type ServerSettings = z.output<typeof settings.response>;

export const serverEndpoints = { settings } as const;
