// Status rules and emoji resolution of the sandbox, without HTTP.
import { describe, expect, it } from "vitest";
import { updateStatus, userStatuses } from "../../src/sandbox/status.js";
import { Realm, DEFAULT_SETTINGS } from "../../src/sandbox/realm.js";
import { QueueRegistry } from "../../src/sandbox/queues.js";
import { ManualClock } from "../../src/sandbox/clock.js";

function realm(): Realm {
  const clock = new ManualClock(0);
  const queues = new QueueRegistry({ heartbeatSeconds: 1, idleTimeoutSeconds: 60 }, () =>
    clock.now(),
  );
  queues.close();
  return new Realm({ ...DEFAULT_SETTINGS }, clock, queues);
}

describe("status emoji (the sandbox's emoji data and the realm's custom emoji)", () => {
  it("looks a name up: custom first, then Unicode, then the service's extra emoji", () => {
    const r = realm();
    expect(updateStatus(r, 7, { emoji_name: "green_tick" })).toEqual({
      emoji_name: "green_tick",
      emoji_code: "3",
      reaction_type: "realm_emoji",
    });
    expect(updateStatus(r, 7, { emoji_name: "car" }).emoji_code).toBe("1f697");
    expect(updateStatus(r, 7, { emoji_name: "zulip" }).reaction_type).toBe("service_extra_emoji");
  });

  it("knows the server's emoji names, not a small table", () => {
    const r = realm();
    expect(updateStatus(r, 7, { emoji_name: "rocket" }).emoji_code).toBe("1f680");
    expect(updateStatus(r, 7, { emoji_name: "working_on_it", emoji_code: "1f6e0" })).toEqual({
      emoji_name: "working_on_it",
      emoji_code: "1f6e0",
      reaction_type: "unicode_emoji",
    });
    expect(() => updateStatus(r, 7, { emoji_name: "not_an_emoji_at_all" })).toThrow(
      /does not exist/,
    );
  });

  it("follows the realm's custom emoji as they change", () => {
    const r = realm();
    r.realmEmoji.set("9", { id: "9", name: "party_parrot", deactivated: false });
    expect(updateStatus(r, 7, { emoji_name: "party_parrot" }).emoji_code).toBe("9");
    r.realmEmoji.get("9")!.deactivated = true;
    expect(() =>
      updateStatus(r, 7, {
        emoji_name: "party_parrot",
        emoji_code: "9",
        reaction_type: "realm_emoji",
      }),
    ).toThrow(/deactivated/);
    expect(() => updateStatus(r, 7, { emoji_name: "party_parrot" })).toThrow(/does not exist/);
  });

  it("checks the code in the namespace of the type", () => {
    const r = realm();
    const cases: [Parameters<typeof updateStatus>[2], RegExp][] = [
      [
        { emoji_name: "green_tick", emoji_code: "4", reaction_type: "realm_emoji" },
        /Invalid custom emoji\./,
      ],
      [
        { emoji_name: "smile", emoji_code: "1", reaction_type: "realm_emoji" },
        /Invalid custom emoji name/,
      ],
      [
        { emoji_name: "zulip", emoji_code: "other", reaction_type: "service_extra_emoji" },
        /Invalid emoji code/,
      ],
      [{ emoji_name: "car", emoji_code: "1f680" }, /Invalid emoji name/],
    ];
    for (const [update, msg] of cases) expect(() => updateStatus(r, 7, update)).toThrow(msg);
    expect(userStatuses(r).has(7)).toBe(false);
  });
});

describe("updateStatus", () => {
  it("keeps the emoji when only the text changes and drops the status when both are empty", () => {
    const r = realm();
    updateStatus(r, 7, { status_text: "lunch", emoji_name: "coffee" });
    expect(updateStatus(r, 7, { status_text: "" })).toEqual({ status_text: "" });
    expect(userStatuses(r).get(7)).toMatchObject({ status_text: "", emoji_name: "coffee" });
    updateStatus(r, 7, { emoji_name: "" });
    expect(userStatuses(r).has(7)).toBe(false);
  });

  it("counts characters, not UTF-16 units, against the 60-character limit", () => {
    const r = realm();
    expect(() => updateStatus(r, 1, { status_text: "🙂".repeat(60) })).not.toThrow();
    expect(() => updateStatus(r, 1, { status_text: "🙂".repeat(61) })).toThrow(/too long/);
  });
});
