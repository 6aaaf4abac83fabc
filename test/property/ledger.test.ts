// The delivery ledger against a model of its watermark, through claims and finishes in any order (its in-order fast path included).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DeliveryLedger, type DeliveryState } from "../../src/inbound/ledger.js";
import type { DeliveryStore } from "../../src/state/delivery/store.js";

/** A store that takes the ledger's state lazily, as the file store does, and reads it on demand. */
function lazyStore(): { store: DeliveryStore; state: () => DeliveryState | undefined } {
  let read: (() => DeliveryState | undefined) | undefined;
  const store = {
    saveWatermarkLater: (state: () => DeliveryState | undefined) => (read = state),
  } as unknown as DeliveryStore;
  return { store, state: () => read?.() };
}

describe("DeliveryLedger", () => {
  it("moves the watermark to the highest finished ID below every running one, as a model does", () => {
    // Claims of IDs 1..60 in any order, each finished at some later step (or never).
    const ops = fc.array(
      fc.tuple(fc.constantFrom("claim", "finish"), fc.integer({ min: 1, max: 60 })),
      { minLength: 1, maxLength: 300 },
    );
    fc.assert(
      fc.property(ops, fc.boolean(), (steps, inOrder) => {
        const { store, state } = lazyStore();
        const ledger = new DeliveryLedger({ store });
        const running = new Set<number>();
        const finished = new Set<number>();
        let mark: number | undefined;
        // In-order runs claim ascending IDs and finish the oldest first: the fast path's case.
        let next = 1;
        for (const [op, n] of steps) {
          if (op === "claim") {
            const id = inOrder ? next++ : n;
            const fresh =
              !running.has(id) && !finished.has(id) && (mark === undefined || id > mark);
            expect(ledger.claim(id)).toBe(fresh);
            if (fresh) running.add(id);
          } else {
            const id = inOrder ? Math.min(...running) : n;
            void ledger.finish(id);
            if (!running.delete(id)) continue;
            finished.add(id);
            const oldest = running.size === 0 ? Infinity : Math.min(...running);
            for (const f of finished) if (f < oldest && (mark === undefined || f > mark)) mark = f;
          }
          expect(ledger.lastHandledId).toBe(mark);
          expect(ledger.running).toBe(running.size);
          const saved = state();
          if (mark !== undefined) expect(saved?.lastHandledId).toBe(mark);
          const above = [...finished]
            .filter((f) => mark === undefined || f > mark)
            .sort((a, b) => a - b);
          if (saved) expect(saved.handledAbove).toEqual(above);
        }
      }),
      { numRuns: 500 },
    );
  });
});
