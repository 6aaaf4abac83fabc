// Sandbox routes for organization settings: PATCH /realm (its message edit settings) and PATCH /realm/user_settings_defaults.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import { requireAdmin } from "../permissions.js";
import { checkSettingValues, type UserSettingValue } from "../userSettings.js";
import { activeUserIds, notifyUsers } from "../notify.js";

/** The PATCH /realm parameters the sandbox models, with the realm setting each one sets. */
const EDIT_SETTINGS = {
  allow_message_editing: "allowMessageEditing",
  message_content_edit_limit_seconds: "messageContentEditLimitSeconds",
  message_content_delete_limit_seconds: "messageContentDeleteLimitSeconds",
  move_messages_within_stream_limit_seconds: "moveMessagesWithinStreamLimitSeconds",
  move_messages_between_streams_limit_seconds: "moveMessagesBetweenStreamsLimitSeconds",
} as const;

export const realmRoutes: Route[] = [
  route(endpoints.realm.update, ({ realm, user, params }) => {
    requireAdmin(user);
    for (const [name, key] of Object.entries(EDIT_SETTINGS)) {
      const given = params[name as keyof typeof EDIT_SETTINGS];
      if (given === undefined) continue;
      // "unlimited" means no limit, stored and announced as null.
      const value = given === '"unlimited"' ? null : given;
      if (realm.settings[key] === value) continue;
      (realm.settings as unknown as Record<string, unknown>)[key] = value;
      // These settings are announced in the update_dict form (the server's history for them).
      notifyUsers(realm, activeUserIds(realm), () => ({
        type: "realm",
        op: "update_dict",
        property: "default",
        data: { [name]: value },
      }));
    }
    return {};
  }),

  route(endpoints.realm.updateUserSettingsDefaults, ({ realm, user, params }) => {
    requireAdmin(user);
    const changes = Object.entries(params).filter(([, value]) => value !== undefined) as [
      string,
      UserSettingValue,
    ][];
    checkSettingValues(Object.fromEntries(changes));
    // Only users joining later start from these; existing users keep their settings.
    for (const [name, value] of changes) {
      realm.userSettingsDefaults[name] = value;
      notifyUsers(realm, activeUserIds(realm), () => ({
        type: "realm_user_settings_defaults",
        op: "update",
        property: name,
        value,
      }));
    }
    return {};
  }),
];
