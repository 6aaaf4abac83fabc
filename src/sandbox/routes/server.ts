// Sandbox route for GET /server_settings: versions and login options, without credentials.
import { endpoints } from "../../api/index.js";
import { publicRoute, type Route } from "../route.js";

export const serverRoutes: Route[] = [
  publicRoute(endpoints.server.settings, ({ realm }) => ({
    authentication_methods: { password: true, dev: false, email: true, ldap: false },
    external_authentication_methods: [],
    // The contract names it service_feature_level; real servers zulip_feature_level: both are sent.
    service_feature_level: realm.settings.featureLevel,
    zulip_feature_level: realm.settings.featureLevel,
    zulip_version: realm.settings.zulipVersion,
    zulip_merge_base: realm.settings.zulipVersion,
    push_notifications_enabled: false,
    is_incompatible: false,
    email_auth_enabled: true,
    require_email_format_usernames: true,
    realm_url: `http://${realm.settings.host}`,
    realm_name: realm.settings.name,
    realm_icon: "",
    realm_description: "",
    realm_web_public_access_enabled: false,
  })),
];
