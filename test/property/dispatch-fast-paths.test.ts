// The dispatch path's fast paths against the general code they stand in for: lane keys, the ID set, the FIFO.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/api/messages.js";
import { IdSet } from "../../src/state/id-set.js";
import { Fifo } from "../../src/dispatch/dispatcher.js";
import {
  conversationKey,
  conversationOf,
  laneKey,
  LaneKeys,
} from "../../src/model/conversation.js";

const user = fc.record({ id: fc.integer({ min: 1, max: 50 }) });

/** Channel and direct messages with the fields a conversation is made of. */
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.record({
    type: fc.constant("stream"),
    stream_id: fc.integer({ min: 1, max: 1_000_000 }),
    display_recipient: fc.string(),
    subject: fc.oneof(fc.string(), fc.constantFrom("Deploys", "DEPLOYS", "İstanbul", "ß straße")),
    sender_id: fc.integer({ min: 1, max: 50 }),
  }),
  fc.record({
    type: fc.constant("private"),
    display_recipient: fc.array(user, { maxLength: 5 }),
    subject: fc.constant(""),
    sender_id: fc.integer({ min: 1, max: 50 }),
  }),
) as unknown as fc.Arbitrary<Message>;

describe("laneKey", () => {
  it("is conversationKey(conversationOf(message)) for every message", () => {
    fc.assert(
      fc.property(message, (m) => {
        expect(laneKey(m)).toBe(conversationKey(conversationOf(m)));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("LaneKeys", () => {
  it("gives laneKey(message) for every message, however many it has seen", () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 300 }), (messages) => {
        const keys = new LaneKeys();
        // Each message twice, the second time as a copy (a new topic string, as off the wire).
        for (const m of messages) {
          expect(keys.of(m)).toBe(laneKey(m));
          expect(keys.of({ ...m, subject: `${m.subject} `.slice(0, -1) })).toBe(laneKey(m));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("keeps at most 1,024 topics", () => {
    const keys = new LaneKeys();
    const topic = (n: number) =>
      ({ type: "stream", stream_id: 1 + (n % 7), subject: `Topic ${n}` }) as unknown as Message;
    for (let n = 0; n < 5_000; n++) {
      expect(keys.of(topic(n))).toBe(`channel:${1 + (n % 7)}:topic ${n}`);
      expect(keys.size).toBeLessThanOrEqual(1_024);
    }
    // A topic seen again after the cache started afresh is keyed as before.
    expect(keys.of(topic(3))).toBe(laneKey(topic(3)));
  });
});

describe("IdSet", () => {
  it("answers as a Set would through adds, deletes and growth", () => {
    const op = fc.tuple(
      fc.constantFrom("add", "delete", "has"),
      // Few distinct IDs keep the table small and its probe chains long; huge IDs exercise the
      // high bits of the hash.
      fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 2 ** 40, max: 2 ** 40 + 40 })),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 100, maxLength: 600, size: "max" }), (ops) => {
        const ids = new IdSet(2);
        const model = new Set<number>();
        for (const [what, id] of ops) {
          if (what === "add") {
            expect(ids.add(id)).toBe(!model.has(id));
            model.add(id);
          } else if (what === "delete") expect(ids.delete(id)).toBe(model.delete(id));
          else expect(ids.has(id)).toBe(model.has(id));
          expect(ids.size).toBe(model.size);
        }
        for (const id of model) expect(ids.has(id)).toBe(true);
      }),
      { numRuns: 150 },
    );
    expect(() => new IdSet().add(0)).toThrow(/positive integer/);
  });
});

describe("Fifo", () => {
  it("answers as an array with push and shift would, through long runs that compact it", () => {
    // Long runs of pushes then of shifts take it past the point where it drops its taken half.
    const op = fc.oneof(
      fc.tuple(fc.constant("push" as const), fc.integer({ min: 1, max: 3000 })),
      fc.tuple(fc.constant("shift" as const), fc.integer({ min: 1, max: 3000 })),
    );
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 12 }), (ops) => {
        const fifo = new Fifo<number>();
        const model: number[] = [];
        let next = 0;
        // Plain comparisons in the loop (up to 36,000 steps a run), one expect at the first difference.
        for (const [step, [what, times]] of ops.entries())
          for (let k = 0; k < times; k++) {
            let got: number | undefined;
            let want: number | undefined;
            if (what === "push") {
              fifo.push(next);
              model.push(next++);
            } else [got, want] = [fifo.shift(), model.shift()];
            if (got !== want || fifo.size !== model.length)
              expect({ step, k, shifted: got, size: fifo.size }).toEqual({
                step,
                k,
                shifted: want,
                size: model.length,
              });
          }
      }),
      { numRuns: 60 },
    );
  });
});
