// UserAccessSetting: the realm's can_access_all_users_group as the bot reads it from register and realm events.
import { describe, expect, it } from "vitest";
import { UserAccessSetting } from "../../src/context/userAccess.js";

const groups = [
  { id: 11, name: "role:everyone" },
  { id: 12, name: "role:members" },
  { id: 40, name: "trusted guests" },
];

describe("UserAccessSetting", () => {
  it("lets guests see everyone only for a setting it resolves to role:everyone", () => {
    const s = new UserAccessSetting();
    expect(s.guestsSeeEveryone()).toBe(false);
    s.learn({ realm_can_access_all_users_group: 11, realm_user_groups: groups });
    expect(s.guestsSeeEveryone()).toBe(true);
    s.learn({ realm_can_access_all_users_group: 12, realm_user_groups: groups });
    expect(s.guestsSeeEveryone()).toBe(false);
    // A custom group, or an ID without its group list: strict.
    s.learn({ realm_can_access_all_users_group: 40, realm_user_groups: groups });
    expect(s.guestsSeeEveryone()).toBe(false);
    s.learn({ realm_can_access_all_users_group: 11 });
    expect(s.guestsSeeEveryone()).toBe(false);
    // An anonymous group: everyone only when it is exactly role:everyone.
    s.learn({
      realm_can_access_all_users_group: { direct_members: [], direct_subgroups: [11] },
      realm_user_groups: groups,
    });
    expect(s.guestsSeeEveryone()).toBe(true);
    s.learn({
      realm_can_access_all_users_group: { direct_members: [5], direct_subgroups: [11] },
      realm_user_groups: groups,
    });
    expect(s.guestsSeeEveryone()).toBe(false);
  });

  it("follows realm update_dict events", () => {
    const s = new UserAccessSetting();
    s.learn({ realm_can_access_all_users_group: 11, realm_user_groups: groups });
    s.onRealmEvent({ op: "update_dict", data: { can_access_all_users_group: 12 } });
    expect(s.guestsSeeEveryone()).toBe(false);
    s.onRealmEvent({ op: "update_dict", data: { name: "x" } });
    expect(s.guestsSeeEveryone()).toBe(false);
    s.onRealmEvent({ op: "update_dict", data: { can_access_all_users_group: 11 } });
    expect(s.guestsSeeEveryone()).toBe(true);
  });
});
