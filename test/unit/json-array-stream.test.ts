// The streaming splitter of a JSON body: the same elements and envelope as JSON.parse, wherever the chunks are cut.
import { describe, expect, it } from "vitest";
import {
  ArrayStreamConsumerError,
  JsonArraySplitter,
  readArrayStream,
  WHOLE_BODY_MAX,
} from "../../src/client/json-array-stream.js";

/** Feeds `text` cut at the given byte offsets; returns every element and the envelope. */
function split(text: string, cuts: number[], field = "events") {
  const bytes = Buffer.from(text, "utf8");
  const splitter = new JsonArraySplitter(field);
  const items: unknown[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    items.push(...splitter.push(bytes.subarray(from, at)));
    from = at;
  }
  return { items, envelope: splitter.end() };
}

/** Deterministic pseudo-random cuts (a tiny LCG: the same on every run). */
function cutsOf(length: number, seed: number, count: number): number[] {
  let x = seed;
  const out = new Set<number>();
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out.add(1 + (x % Math.max(1, length - 1)));
  }
  return [...out].sort((a, b) => a - b);
}

const tricky = {
  result: "success",
  msg: 'the "events": [not this] {nor this} \\',
  events: [
    { type: "message", id: 0, message: { content: 'a "quoted" ] } , [ string \\" ✓ 😀' } },
    { type: "heartbeat", id: 1 },
    { type: "x", id: 2, nested: [[1, 2], { events: [3] }], empty: {}, list: [] },
    "a string element, with a comma",
    42,
    null,
    [1, [2]],
  ],
  queue_id: "q:1",
  after: { events: [9] },
};

describe("JsonArraySplitter", () => {
  it("gives JSON.parse's elements and an envelope with [] in their place, cut anywhere", () => {
    const text = JSON.stringify(tricky, null, 1);
    const length = Buffer.byteLength(text);
    const expected = { ...tricky, events: [] };
    // Every single cut, then many random multi-cuts (including inside multi-byte characters).
    for (let at = 1; at < length; at++) {
      const { items, envelope } = split(text, [at]);
      expect(items).toEqual(tricky.events);
      expect(envelope).toEqual(expected);
    }
    for (let seed = 1; seed <= 200; seed++) {
      const { items, envelope } = split(text, cutsOf(length, seed, 1 + (seed % 40)));
      expect(items).toEqual(tricky.events);
      expect(envelope).toEqual(expected);
    }
  });

  it("streams only the named top-level array, once", () => {
    const text = JSON.stringify({ other: [1, 2], events: [{ id: 1 }], events2: [3] });
    const { items, envelope } = split(text, [7, 20]);
    expect(items).toEqual([{ id: 1 }]);
    expect(envelope).toEqual({ other: [1, 2], events: [], events2: [3] });
    const empty = split(JSON.stringify({ result: "success", events: [] }), [3]);
    expect(empty).toEqual({ items: [], envelope: { result: "success", events: [] } });
  });

  it("leaves a field that is not an array in the envelope, and an error body whole", () => {
    expect(split(JSON.stringify({ events: 5 }), [4])).toEqual({
      items: [],
      envelope: { events: 5 },
    });
    const error = { result: "error", msg: "Bad event queue id: x", code: "BAD_EVENT_QUEUE_ID" };
    expect(split(JSON.stringify(error), [10])).toEqual({ items: [], envelope: error });
  });

  it("refuses a body that ends early or is not JSON", () => {
    const text = JSON.stringify(tricky);
    expect(() => split(text.slice(0, text.indexOf("heartbeat") + 20), [])).toThrow(SyntaxError);
    expect(() => split('{"events":[{"id":1,}]}', [])).toThrow(SyntaxError);
    expect(() => split("<html>", [])).toThrow(SyntaxError);
  });
});

describe("readArrayStream", () => {
  it("waits for each take before reading the next chunk, and hands elements over in order", async () => {
    const events = Array.from({ length: 50 }, (_, id) => ({ id, type: "message" }));
    const bytes = Buffer.from(JSON.stringify({ result: "success", events, queue_id: "q" }));
    const log: string[] = [];
    async function* chunks() {
      for (let at = 0; at < bytes.length; at += 97) {
        log.push(`read ${at}`);
        yield bytes.subarray(at, at + 97);
      }
    }
    const taken: unknown[] = [];
    const body = await readArrayStream(chunks(), {
      field: "events",
      take: async (items) => {
        log.push(`take ${items.length}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        taken.push(...items);
      },
    });
    expect(taken).toEqual(events);
    expect(body).toEqual({ result: "success", events: [], queue_id: "q" });
    // Every take came before the next read.
    for (let i = 0; i < log.length - 1; i++)
      if (log[i]!.startsWith("take")) expect(log[i + 1]!.startsWith("read")).toBe(true);
  });

  it("parses a small answer whole and hands its array over at once", async () => {
    const events = Array.from({ length: 20 }, (_, id) => ({ id, type: "message" }));
    const bytes = Buffer.from(JSON.stringify({ result: "success", events }));
    expect(bytes.length).toBeLessThanOrEqual(WHOLE_BODY_MAX);
    async function* chunks() {
      for (let at = 0; at < bytes.length; at += 50) yield bytes.subarray(at, at + 50);
    }
    const takes: unknown[][] = [];
    const body = await readArrayStream(
      chunks(),
      { field: "events", take: (items) => void takes.push(items) },
      bytes.length,
    );
    expect(takes).toEqual([events]);
    expect(body).toEqual({ result: "success", events: [] });
  });

  it("marks what take throws as the consumer's, on both paths", async () => {
    const bytes = Buffer.from(JSON.stringify({ events: [{ id: 1 }, { id: 2 }] }));
    for (const length of [bytes.length, undefined]) {
      const failure = readArrayStream(
        (async function* () {
          yield bytes;
        })(),
        {
          field: "events",
          take: () => {
            throw new RangeError("sink broke");
          },
        },
        length,
      );
      await expect(failure).rejects.toBeInstanceOf(ArrayStreamConsumerError);
      await expect(failure).rejects.toHaveProperty("cause.message", "sink broke");
    }
  });
});
