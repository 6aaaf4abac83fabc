// Status rules and emoji resolution of the sandbox, without HTTP.
import { describe, expect, it } from "vitest";
import {
  createEmojiLookup,
  defaultEmojiLookup,
  resolveEmoji,
  updateStatus,
  userStatuses,
} from "../../src/sandbox/status.js";
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

describe("resolveEmoji", () => {
  it("looks a name up: custom first, then Unicode, then the service's extra emoji", () => {
    expect(resolveEmoji(defaultEmojiLookup, "green_tick", undefined, undefined)).toEqual({
      emoji_name: "green_tick",
      emoji_code: "1",
      reaction_type: "realm_emoji",
    });
    expect(resolveEmoji(defaultEmojiLookup, "car", undefined, undefined).emoji_code).toBe("1f697");
    expect(resolveEmoji(defaultEmojiLookup, "zulip", undefined, undefined).reaction_type).toBe(
      "service_extra_emoji",
    );
  });

  it("uses whatever name-to-code function backs it", () => {
    const lookup = createEmojiLookup((name) => (name === "rocket" ? "1f680" : undefined));
    expect(resolveEmoji(lookup, "rocket", "1f680", "unicode_emoji").emoji_code).toBe("1f680");
    expect(() => resolveEmoji(lookup, "car", undefined, undefined)).toThrow(/does not exist/);
  });

  it("checks the code in the namespace of the type", () => {
    expect(() => resolveEmoji(defaultEmojiLookup, "green_tick", "3", "realm_emoji")).toThrow(
      /Invalid custom emoji\./,
    );
    expect(() => resolveEmoji(defaultEmojiLookup, "smile", "1", "realm_emoji")).toThrow(
      /Invalid custom emoji name/,
    );
    expect(() => resolveEmoji(defaultEmojiLookup, "zulip", "other", "service_extra_emoji")).toThrow(
      /Invalid emoji code/,
    );
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
