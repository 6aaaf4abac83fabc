// The client's pacer shares the request budget among open streams and keeps a reserve for replies.
import { describe, expect, it } from "vitest";
import { DEFAULT_RATE_LIMIT, Pacer } from "../../src/client/pacing.js";
import { applyRealmEvent, editWindowOf, learnEditWindow } from "../../src/client/edit-window.js";

describe("Pacer: streams share the budget", () => {
  it("splits half of 200 a minute equally among the open streams", () => {
    const pacer = new Pacer({ now: () => 0 });
    const close = [pacer.openStream(), pacer.openStream(), pacer.openStream()];
    expect(pacer.openStreams).toBe(3);
    // 3 streams x (60 s / 1.8 s) = 100 edits a minute: half the default limit.
    expect(pacer.editInterval()).toBe(1_800);
    close[0]!();
    close[0]!();
    expect(pacer.editInterval()).toBe(1_200);
    close[1]!();
    close[2]!();
    expect(pacer.openStreams).toBe(0);
    expect(pacer.editInterval()).toBe(DEFAULT_RATE_LIMIT.windowMs / 100);
  });

  it("reads the limit and the window off the headers", () => {
    let now = 1_000_000;
    const pacer = new Pacer({ now: () => now });
    // A 30-per-3-s rule: a request just counted frees its place 3 s later (truncated to the second).
    pacer.observe({ limit: 30, remaining: 29, reset: Math.floor((now + 3_000) / 1000) });
    const interval = pacer.editInterval();
    expect(interval).toBeGreaterThanOrEqual(200);
    expect(interval).toBeLessThanOrEqual(267);
    now += 10;
    expect(pacer.editDelay()).toBe(0);
  });

  it("holds stream edits back once a fifth of the budget is left, while replies still go", () => {
    const now = 0;
    const pacer = new Pacer({ now: () => now });
    pacer.observe({ limit: 200, remaining: 40, reset: 30 });
    expect(pacer.editDelay()).toBe(31_000);
    // A reply does not wait: requests are left.
    expect(pacer.beforeRequest("POST /messages")).toBeUndefined();
    expect(pacer.delay()).toBe(0);
  });

  it("resolves streamsIdle when the last stream closes", async () => {
    const pacer = new Pacer();
    await pacer.streamsIdle();
    const close = pacer.openStream();
    let idle = false;
    const waiting = pacer.streamsIdle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    close();
    await waiting;
    expect(idle).toBe(true);
  });
});

describe("the edit window a client learned", () => {
  it("is 600 s until told, then follows the registration and realm events", () => {
    const api = {};
    expect(editWindowOf(api)).toBe(600);
    learnEditWindow(api, { realm_message_content_edit_limit_seconds: 120 });
    expect(editWindowOf(api)).toBe(120);
    applyRealmEvent(api, { op: "update_dict", data: { message_content_edit_limit_seconds: null } });
    expect(editWindowOf(api)).toBeNull();
    applyRealmEvent(api, { op: "update_dict", data: { allow_message_editing: false } });
    expect(editWindowOf(api)).toBe(0);
    applyRealmEvent(api, { op: "update", data: undefined });
    expect(editWindowOf(api)).toBe(0);
    learnEditWindow(api, {
      realm_allow_message_editing: true,
      realm_message_content_edit_limit_seconds: null,
    });
    expect(editWindowOf(api)).toBeNull();
  });
});
