import { describe, expect, it } from "vitest";
import {
  CapabilityError,
  capabilitiesAt,
  CommandRateLimiter,
  requireCapability,
  splitMessage,
} from "topicbot";
import { createMemoryStore } from "../../src/state/key-value/store.js";
import { Dialogs, openSession, sessionKey } from "../../src/context/session.js";
import { sendParams } from "../../src/context/actions.js";
import { scheduleSeconds } from "../../src/context/chat-actions.js";

describe("splitMessage", () => {
  it("leaves short content alone", () => {
    expect(splitMessage("hello\nworld", 100)).toEqual(["hello\nworld"]);
  });

  it("breaks between lines, never inside one that fits", () => {
    expect(splitMessage("aaa\nbbb\nccc", 7)).toEqual(["aaa\nbbb", "ccc"]);
    expect(splitMessage("aaaa\nbbbb\ncc", 5)).toEqual(["aaaa", "bbbb", "cc"]);
  });

  it("cuts a single line that is too long, at a space when there is one", () => {
    expect(splitMessage("one two three four", 9)).toEqual(["one two", "three", "four"]);
    expect(splitMessage("x".repeat(12), 5)).toEqual(["xxxxx", "xxxxx", "xx"]);
  });

  it("counts characters, not UTF-16 units", () => {
    expect(splitMessage("😀😀😀\n😀😀", 3)).toEqual(["😀😀😀", "😀😀"]);
  });
});

describe("capabilities", () => {
  it("lists what a server can do at its feature level", () => {
    const at300 = Object.fromEntries(capabilitiesAt(300).map((c) => [c.name, c.available]));
    expect(at300).toMatchObject({ reply: true, flags: true, schedule: true, report: false });
    expect(capabilitiesAt(undefined).every((c) => c.available)).toBe(true);
  });

  it("fails with an error naming the level needed and the server's", () => {
    expect(() => requireCapability("report", 381)).toThrow(
      "report needs server feature level 382 or later (POST /messages/{message_id}/report); this server is at level 381",
    );
    try {
      requireCapability("schedule", 100);
    } catch (error) {
      expect(error).toBeInstanceOf(CapabilityError);
      expect(error).toMatchObject({ code: "UNSUPPORTED_BY_SERVER", needed: 173, serverLevel: 100 });
    }
    expect(() => requireCapability("report", 382)).not.toThrow();
  });
});

describe("CommandRateLimiter", () => {
  it("allows `commands` per window and notifies once per window", () => {
    let now = 0;
    const limiter = new CommandRateLimiter({ commands: 2, perSeconds: 10 }, () => now);
    expect(limiter.check(1)).toEqual({ allowed: true });
    expect(limiter.check(1)).toEqual({ allowed: true });
    expect(limiter.check(2)).toEqual({ allowed: true });
    expect(limiter.check(1)).toEqual({ allowed: false, notify: true, retryInMs: 10_000 });
    now = 4_000;
    expect(limiter.check(1)).toEqual({ allowed: false, notify: false, retryInMs: 6_000 });
    now = 10_000;
    expect(limiter.check(1)).toEqual({ allowed: true });
  });

  it("refuses a nonsensical limit", () => {
    expect(() => new CommandRateLimiter({ commands: 0, perSeconds: 10 })).toThrow(RangeError);
  });
});

describe("sessions and dialogs", () => {
  it("keys sessions by conversation and optionally user, and expires them", async () => {
    let now = 0;
    const store = createMemoryStore(() => now);
    const channel = { type: "channel" as const, streamId: 3, channel: "general", topic: "Plans" };
    expect(sessionKey({ conversation: channel })).toBe("channel:3:plans");
    expect(sessionKey({ conversation: { type: "direct", userIds: [1, 5] }, userId: 5 })).toBe(
      "direct:1,5:user:5",
    );
    const session = openSession<{ n: number }>(store, "k", 1_000);
    expect(await session.get()).toBeUndefined();
    expect(await session.update((s) => ({ n: (s?.n ?? 0) + 1 }))).toEqual({ n: 1 });
    expect(await session.update((s) => ({ n: (s?.n ?? 0) + 1 }))).toEqual({ n: 2 });
    now = 1_000;
    expect(await session.get()).toBeUndefined();
    await session.set({ n: 9 }, { ttlMs: 5_000 });
    expect(await session.clear()).toBe(true);
  });

  it("hands the next message to the open question, and times out to undefined", async () => {
    const dialogs = new Dialogs<string>();
    const answer = dialogs.wait("a", 1_000);
    expect(dialogs.offer("b", "not for a")).toBe(false);
    expect(dialogs.offer("a", "yes")).toBe(true);
    expect(await answer).toBe("yes");
    expect(dialogs.offer("a", "again")).toBe(false);
    expect(await dialogs.wait("c", 10)).toBeUndefined();
    const first = dialogs.wait("d", 1_000);
    const second = dialogs.wait("d", 1_000);
    expect(await first).toBeUndefined(); // superseded by the second question
    dialogs.cancelAll();
    expect(await second).toBeUndefined();
    expect(dialogs.size).toBe(0);
  });
});

describe("open questions in storage", () => {
  it("keeps each open question until answered, superseded or timed out; a stop keeps them for the next start", async () => {
    const store = createMemoryStore();
    const dialogs = new Dialogs<string>({ store, now: () => 1_000 });
    const answered = dialogs.wait("a", 60_000, "Your name?");
    expect(await store.get("a")).toEqual({ question: "Your name?", askedAt: 1_000 });
    expect(await dialogs.orphaned("a")).toBeUndefined(); // someone is waiting for it
    dialogs.offer("a", "Ada");
    expect(await answered).toBe("Ada");
    expect(await store.get("a")).toBeUndefined();

    void dialogs.wait("b", 60_000, "Colour?");
    void dialogs.wait("b", 60_000, "Shape?");
    expect(await store.get("b")).toEqual({ question: "Shape?", askedAt: 1_000 });
    dialogs.cancelAll();
    expect(await store.get("b")).toEqual({ question: "Shape?", askedAt: 1_000 });

    // The next process finds it once, with nobody waiting.
    const next = new Dialogs<string>({ store });
    await next.load();
    expect(await next.orphaned("b")).toEqual({ question: "Shape?", askedAt: 1_000 });
    expect(await next.orphaned("b")).toBeUndefined();
    expect(await next.wait("c", 5, "Quick?")).toBeUndefined();
    expect(await store.get("c")).toBeUndefined();
  });
});

describe("send targets", () => {
  it("maps channels, topic links and users to POST /messages parameters", () => {
    expect(sendParams({ to: "general", topic: "x" }, 400)).toEqual({
      type: "channel",
      to: "general",
      topic: "x",
    });
    expect(sendParams({ to: { name: "general", streamId: 1 }, topic: "x" }, 400)).toMatchObject({
      to: 1,
    });
    expect(sendParams({ to: { channel: "dev", streamId: 3, topic: "ci" } }, 400)).toEqual({
      type: "channel",
      to: 3,
      topic: "ci",
    });
    expect(sendParams({ to: [{ userId: 4 }, 7] }, 400)).toEqual({ type: "direct", to: [4, 7] });
    expect(sendParams({ to: ["a@x.test"] }, 100)).toEqual({ type: "private", to: ["a@x.test"] });
    expect(() => sendParams({ to: "general" } as never, 400)).toThrow("needs a `topic`");
  });
});

describe("schedule times", () => {
  const options = { now: Date.parse("2025-03-01T12:00:00Z"), timeZone: "Europe/Paris" };
  it("takes a Date, UNIX seconds, or a human time in the configured zone", () => {
    expect(scheduleSeconds(new Date("2025-03-01T12:30:00Z"), options)).toBe(1740832200);
    expect(scheduleSeconds(1740832200.7, options)).toBe(1740832200);
    expect(scheduleSeconds("in 10 minutes", options)).toBe(1740830400 + 600);
    expect(scheduleSeconds("tomorrow 9:00", options)).toBe(
      Date.parse("2025-03-02T08:00:00Z") / 1000,
    );
    expect(() => scheduleSeconds("whenever", options)).toThrow(
      'schedule: "whenever" is not a time',
    );
  });
});
