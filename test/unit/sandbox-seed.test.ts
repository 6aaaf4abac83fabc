// The seeded realm's roles and special permissions, and email visibility rules, without HTTP.
import { describe, expect, it } from "vitest";
import { Realm, DEFAULT_SETTINGS } from "../../src/sandbox/realm.js";
import { QueueRegistry } from "../../src/sandbox/queues.js";
import { ManualClock } from "../../src/sandbox/clock.js";
import { seedRealm } from "../../src/sandbox/seed.js";
import { apiEmail, canSeeRealEmail, findUserByEmail } from "../../src/sandbox/emailVisibility.js";

function seeded() {
  const clock = new ManualClock(0);
  const queues = new QueueRegistry({ heartbeatSeconds: 1, idleTimeoutSeconds: 60 }, () =>
    clock.now(),
  );
  queues.close();
  const realm = new Realm({ ...DEFAULT_SETTINGS }, clock, queues);
  return { realm, users: seedRealm(realm) };
}

describe("the seeded realm", () => {
  it("has exactly one owner, holding both special permissions; the administrator holds neither", () => {
    const { realm, users } = seeded();
    const owners = [...realm.users.values()].filter((u) => u.role === 100);
    expect(owners.map((u) => u.userId)).toEqual([users.get("olivia")!.userId]);
    expect([...owners[0]!.permissions].sort()).toEqual([
      "can_change_user_emails",
      "can_create_users",
    ]);
    expect(users.get("adam")!.role).toBe(200);
    expect(users.get("adam")!.permissions.size).toBe(0);
  });

  it("has the Notification Bot, a system bot created after the seeded accounts", () => {
    const { realm, users } = seeded();
    const system = [...realm.users.values()].filter((u) => u.isSystemBot);
    expect(system.map((u) => [u.fullName, u.isBot])).toEqual([["Notification Bot", true]]);
    expect(Math.max(...[...users.values()].map((u) => u.userId))).toBeLessThan(system[0]!.userId);
    expect(realm.systemBot()).toBe(system[0]);
  });

  it("gives every user the realm's default settings, each its own copy", () => {
    const { realm, users } = seeded();
    const mia = users.get("mia")!;
    expect(mia.settings).toEqual(realm.userSettingsDefaults);
    realm.userSettingsDefaults.enter_sends = true;
    expect(mia.settings.enter_sends).toBe(false);
  });
});

describe("email visibility", () => {
  it("follows each policy, always shows bots and one's own, and finds users by placeholder", () => {
    const { realm, users } = seeded();
    const [owner, admin, mod, member, guest, bot] = [
      "olivia",
      "adam",
      "max",
      "mia",
      "gus",
      "bot",
    ].map((h) => users.get(h)!);
    const target = member!;
    const who = (vis: number) => {
      target.settings.email_address_visibility = vis;
      return [owner, admin, mod, guest, undefined].map((v) => canSeeRealEmail(v, target));
    };
    expect(who(1)).toEqual([true, true, true, true, true]);
    expect(who(2)).toEqual([true, true, true, false, false]);
    expect(who(3)).toEqual([true, true, false, false, false]);
    expect(who(5)).toEqual([true, true, true, false, false]);
    expect(who(4)).toEqual([false, false, false, false, false]);
    expect(canSeeRealEmail(target, target)).toBe(true);
    expect(canSeeRealEmail(guest, bot!)).toBe(true);
    expect(apiEmail(realm, target)).toBe(`user${target.userId}@${realm.settings.host}`);
    expect(findUserByEmail(realm, admin, `USER${target.userId}@${realm.settings.host}`)).toBe(
      target,
    );
    expect(findUserByEmail(realm, admin, target.email)).toBeUndefined();
  });
});
