import { describe, expect, it } from "vitest";
import { Quarantine, readDeadLetters } from "../../src/state/quarantine.js";
import { createMemoryStore } from "../../src/state/key-value/store.js";

describe("quarantine of messages whose handler keeps failing", () => {
  it("counts failures across instances (restarts) and quarantines at maxFailures, then skips the message", async () => {
    const store = createMemoryStore().namespace("topicbot:runtime");
    const quarantined: number[] = [];
    const open = async () => {
      const q = new Quarantine({
        store,
        maxFailures: 3,
        now: () => 1_000,
        onQuarantined: (l) => quarantined.push(l.messageId),
      });
      await q.load();
      return q;
    };
    for (let run = 1; run <= 3; run++) {
      const q = await open();
      expect(q.has(42)).toBe(false);
      expect(q.failuresOf(42)).toBe(run - 1);
      await q.failed(42, "hang", "command hang", "ran past half its time limit of 2 s", true);
    }
    const q = await open();
    expect(q.has(42)).toBe(true);
    expect(quarantined).toEqual([42]);
    expect(await readDeadLetters(store)).toEqual([
      {
        messageId: 42,
        plugin: "hang",
        handler: "command hang",
        failures: 3,
        reason: "ran past half its time limit of 2 s",
        at: 1_000,
      },
    ]);
    // Counted once more it stays one dead letter.
    await q.failed(42, "hang", "command hang", "again");
    expect(q.list()).toHaveLength(1);
    expect(await q.release(42)).toBe(true);
    expect((await open()).has(42)).toBe(false);
  });

  it("a handler that ends well drops its count; maxFailures false never quarantines", async () => {
    const store = createMemoryStore().namespace("topicbot:runtime");
    const q = new Quarantine({ store, maxFailures: 2 });
    await q.failed(7, "p", "listener", "boom");
    q.succeeded(7);
    await q.failed(7, "p", "listener", "boom");
    expect(q.has(7)).toBe(false);
    const never = new Quarantine({ store: createMemoryStore(), maxFailures: false });
    for (let i = 0; i < 10; i++) await never.failed(8, "p", "listener", "boom");
    expect(never.has(8)).toBe(false);
    expect(never.failuresOf(8)).toBe(10);
  });
});
