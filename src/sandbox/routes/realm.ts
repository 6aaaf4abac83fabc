// Sandbox routes for organization settings: PATCH /realm/user_settings_defaults.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import { requireAdmin } from "../permissions.js";
import { checkSettingValues, type UserSettingValue } from "../userSettings.js";
import { activeUserIds, notifyUsers } from "../notify.js";

export const realmRoutes: Route[] = [
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
