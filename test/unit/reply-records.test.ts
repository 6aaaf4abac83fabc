import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileDeliveryStore } from "../../src/state/delivery/file.js";
import { ReplyBook } from "../../src/state/delivery/records.js";
import type { ReplyIntent } from "../../src/state/delivery/store.js";
import { encodeRequest, formEncode } from "../../src/client/encode.js";
import { createBotMetrics } from "../../src/metrics/bot.js";
import { MetricsRegistry } from "../../src/metrics/registry.js";

/** The journal's records, without its format header (`{"v":1}`, the first line of every journal). */
const journalLines = (path: string): string[] =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .filter((line) => line !== '{"v":1}');

// What a reply leaves behind on its way out: its form encoding, its latency in the histogram, its
// record in the reply book and its intent's line in the journal.

describe("request fields", () => {
  it("are form-encoded as URLSearchParams would", () => {
    const params = { type: "channel", to: 5, topic: "topic 3", content: "echo 1 (ok!) ~é" };
    const { form } = encodeRequest("/messages", params);
    const poll = encodeRequest("/events", { queue_id: "1:2", last_event_id: 7 });
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
  it("counts every reply, a clock step as zero", async () => {
    const metrics = createBotMetrics();
    for (let i = 0; i < 100; i++) metrics.replySent(0.002);
    metrics.replySent(-1); // a clock step counts as zero
    const text = await metrics.registry.expose();
    expect(text).toContain("topicbot_reply_latency_seconds_count 101");
    expect(text).toMatch(/topicbot_reply_latency_seconds_bucket\{le="0\.01"\} 101/);
    expect(text).toContain("topicbot_reply_latency_seconds_sum 0.2");
  });

  it("records through an observer as through observe", async () => {
    const left = new MetricsRegistry();
    const right = new MetricsRegistry();
    const a = left.histogram({ name: "a", help: "h", labels: ["k"], buckets: [1, 2] });
    const b = right.histogram({ name: "a", help: "h", labels: ["k"], buckets: [1, 2] });
    const observe = b.observer({ k: "x" });
    for (const v of [0.5, 1, 1.5, 3]) {
      a.observe({ k: "x" }, v);
      observe(v);
    }
    expect(await right.expose()).toEqual(await left.expose());
    expect(await right.expose()).toContain('a_count{k="x"} 4');
  });
});

describe("the reply book", () => {
  it("forgets the oldest incoming message first, and only for a new one", () => {
    const forgotten: number[] = [];
    const book = new ReplyBook(3, (id) => forgotten.push(id));
    for (let id = 1; id <= 8; id++) book.sent(id, 0, [100 + id]);
    book.sent(8, 1, [200]); // a known message: nothing forgotten
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
  it("is one JSON line per intent, and reads back as the intent", async () => {
    const dir = mkdtempSync(join(tmpdir(), "topicbot-intent-"));
    try {
      const path = join(dir, "j.jsonl");
      const store = await FileDeliveryStore.open({ path });
      // As a first start does before any event: a journal with replies has a watermark.
      await store.saveWatermark({ lastHandledId: 0, handledAbove: [] });
      await store.flush();
      const watermarkLines = journalLines(path).length;
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
      await Promise.all(intents.map((i) => store.intend(i)));
      const lines = journalLines(path).slice(watermarkLines);
      expect(lines).toEqual(intents.map((i) => JSON.stringify({ i })));
      // Odd intents (`willEdit: false`, a key it does not know) are kept whole.
      const odd = { ...intents[0]!, incomingId: 10, willEdit: false };
      const extra = { ...intents[0]!, incomingId: 11, note: "x" } as ReplyIntent;
      await Promise.all([store.intend(odd), store.intend(extra)]);
      await store.close();
      expect(journalLines(path).slice(watermarkLines + 2)).toEqual([
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
