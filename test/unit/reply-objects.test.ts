import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FileDeliveryStore } from "../../src/runtime/delivery/file-store.js";
import { ReplyBook } from "../../src/runtime/delivery/records.js";
import type { ReplyIntent } from "../../src/runtime/delivery/store.js";
import type { SendParams } from "../../src/api/messages.js";
import { encodeRequest, formEncode } from "../../src/client/encode.js";
import { MessageContextObject, type GuardedSend } from "../../src/runtime/context/context.js";
import { address, botAccount } from "../../src/runtime/dispatch/gate.js";
import { createBotMetrics } from "../../src/metrics/bot.js";
import { Histogram } from "../../src/metrics/registry.js";
import type { Message } from "../../src/api/messages.js";
import { recordingServices } from "../helpers/fixtures.js";
import { messageEvent } from "../helpers/in-memory-bot.js";

// Objects, closures and lookups a reply made on its way out that it need not: the closures a
// context handed its send guard, a `URLSearchParams` per request, a series lookup per latency,
// a walk of the reply book's map per incoming message, a `JSON.stringify` of the whole intent.

const me = botAccount({ userId: 1000, email: "bot@example.com", fullName: "Helper" });

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("a context's send as its guard gets it", () => {
  it("is one object, its steps shared methods, not closures made for each reply", async () => {
    const seen: GuardedSend[] = [];
    const posted: SendParams[] = [];
    const services = recordingServices(me, posted, {
      guard: (_ctx, _n, send) => {
        seen.push(send);
        return send.post();
      },
    });
    const { message } = messageEvent(1, 7, "topic", "!echo") as unknown as { message: Message };
    const ctx = new MessageContextObject({
      message,
      flags: [],
      addressing: address("!echo", { isDirect: false, bot: me, prefix: "!" }),
      services,
    });
    const first = await ctx.reply("one");
    await ctx.reply("two");
    await ctx.send({ to: "general", topic: "elsewhere", content: "three" });
    expect(first.id).toBe(101);
    expect(seen).toHaveLength(3);
    const [a, b, c] = seen as [GuardedSend, GuardedSend, GuardedSend];
    // No function of its own: posting, naming the destination and the intent's parameters are
    // the prototype's, the same for every send (the old guard got three closures per reply).
    for (const send of seen)
      expect(Object.values(send).filter((v) => typeof v === "function")).toEqual([]);
    expect(a.post).toBe(b.post);
    expect(a.where).toBe(c.where);
    expect([a.kind, b.kind, c.kind]).toEqual(["reply", "reply", "send"]);
    expect(a.willEdit).toBe(false);
    expect(a.where()).toBe(b.where());
    expect(c.where()).toBe('{"to":"general","topic":"elsewhere"}');
    expect(b.params()).toEqual({ type: "channel", to: 1, topic: "topic", content: "two" });
    expect(posted.map((p) => p.content)).toEqual(["one", "two", "three"]);
  });
});

describe("request fields", () => {
  it("are form-encoded as text, without a URLSearchParams per request", () => {
    let made = 0;
    const Real = URLSearchParams;
    vi.stubGlobal(
      "URLSearchParams",
      class extends Real {
        constructor(...args: ConstructorParameters<typeof URLSearchParams>) {
          super(...args);
          made++;
        }
      },
    );
    const params = { type: "channel", to: 5, topic: "topic 3", content: "echo 1 (ok!) ~é" };
    const { form } = encodeRequest("/messages", params);
    const poll = encodeRequest("/events", { queue_id: "1:2", last_event_id: 7 });
    vi.unstubAllGlobals();
    // One for each request before.
    expect(made).toBe(0);
    const want = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) want.append(k, String(v));
    expect(form).toBe(want.toString());
    expect(poll.form).toBe("queue_id=1%3A2&last_event_id=7");
  });

  it("come out as URLSearchParams writes them, for any text", () => {
    const cases = [
      "",
      " ",
      "plain",
      "a b!~()*'-._ é😀\n&=+%",
      "\uD800x", // lone surrogates: U+FFFD
      "x\uDC00",
      "é then ascii!",
    ];
    // A fixed pseudo-random mix of ASCII, other BMP characters and surrogates.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2_000; i++) {
      let s = "";
      for (let j = next(12); j > 0; j--) {
        const kind = next(10);
        s += String.fromCharCode(
          kind < 7 ? next(128) : kind < 9 ? 128 + next(4000) : 0xd800 + next(0x800),
        );
      }
      cases.push(s);
    }
    const wrong = cases.filter(
      (s) => formEncode(s) !== new URLSearchParams({ s }).toString().slice(2),
    );
    expect(wrong).toEqual([]);
  });
});

describe("the reply latency histogram", () => {
  it("is fed without looking its series up for every reply", () => {
    const metrics = createBotMetrics();
    const slot = vi.spyOn(
      Object.getPrototypeOf(Histogram.prototype) as { slot: () => unknown },
      "slot",
    );
    for (let i = 0; i < 100; i++) metrics.replySent(0.002);
    metrics.replySent(-1); // a clock step counts as zero
    // Every observation looked the series up (label key, init closure): 101.
    expect(slot).not.toHaveBeenCalled();
    const text = metrics.registry.expose();
    expect(text).toContain("topicbot_reply_latency_seconds_count 101");
    expect(text).toMatch(/topicbot_reply_latency_seconds_bucket\{le="0\.01"\} 101/);
    expect(text).toContain("topicbot_reply_latency_seconds_sum 0.2");
  });

  it("records through an observer as through observe", () => {
    const a = new Histogram({ name: "a", help: "h", labels: ["k"], buckets: [1, 2] });
    const b = new Histogram({ name: "a", help: "h", labels: ["k"], buckets: [1, 2] });
    const observe = b.observer({ k: "x" });
    for (const v of [0.5, 1, 1.5, 3]) {
      a.observe({ k: "x" }, v);
      observe(v);
    }
    expect(b.lines()).toEqual(a.lines());
  });
});

describe("the reply book", () => {
  it("forgets the oldest incoming message without walking its map", () => {
    const forgotten: number[] = [];
    const book = new ReplyBook(3, (id) => forgotten.push(id));
    const keys = vi.spyOn(Map.prototype, "keys");
    for (let id = 1; id <= 8; id++) book.sent(id, 0, [100 + id]);
    book.sent(8, 1, [200]); // a known message: nothing forgotten
    const walks = keys.mock.calls.length;
    keys.mockRestore();
    // Each message past the third looked the oldest up through the map's iterator: 5.
    expect(walks).toBe(0);
    expect(forgotten).toEqual([1, 2, 3, 4, 5]);
    expect(book.records().map((r) => [r.incomingId, r.index])).toEqual([
      [6, 0],
      [7, 0],
      [8, 0],
      [8, 1],
    ]);
    expect(book.get(5, 0)).toBeUndefined();
    expect(book.size).toBe(3);
  });
});

describe("an intent's journal record", () => {
  it("stringifies only the parameters, and reads back as the intent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "topicbot-intent-"));
    try {
      const path = join(dir, "j.jsonl");
      const store = await FileDeliveryStore.open({ path });
      const intents: ReplyIntent[] = [
        {
          incomingId: 7,
          index: 0,
          params: { type: "channel", to: 5, topic: 't "q"', content: "echo\n 1 é" },
          floor: 9,
          at: 1_700_000_000_123,
        },
        {
          incomingId: 8,
          index: 2,
          params: { type: "direct", to: [3, 4], content: "x" },
          floor: 9,
          at: 1,
          willEdit: true,
        },
      ];
      const stringify = vi.spyOn(JSON, "stringify");
      await Promise.all(intents.map((i) => store.intend(i)));
      const whole = stringify.mock.calls.filter(([v]) => intents.includes(v as ReplyIntent));
      stringify.mockRestore();
      // Each intent went through JSON.stringify whole: 2.
      expect(whole).toHaveLength(0);
      const lines = readFileSync(path, "utf8").trim().split("\n");
      expect(lines).toEqual(intents.map((i) => JSON.stringify({ i })));
      // Odd intents (`willEdit: false`, a key it does not know) are stringified whole.
      const odd = { ...intents[0]!, incomingId: 10, willEdit: false };
      const extra = { ...intents[0]!, incomingId: 11, note: "x" } as ReplyIntent;
      await Promise.all([store.intend(odd), store.intend(extra)]);
      await store.close();
      expect(readFileSync(path, "utf8").trim().split("\n").slice(2)).toEqual([
        JSON.stringify({ i: odd }),
        JSON.stringify({ i: extra }),
      ]);
      const again = await FileDeliveryStore.open({ path });
      expect((await again.load()).replies.map((r) => r.intent)).toEqual([...intents, odd, extra]);
      await again.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
