import { describe, expect, it } from "vitest";
import { Dispatcher } from "../../src/dispatch/dispatcher.js";
import { RecentIds } from "../../src/state/recent-ids.js";

/** A promise with its resolve function, to finish tasks when a test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe("Dispatcher", () => {
  it("runs one lane's tasks in order, one at a time", async () => {
    const d = new Dispatcher({ concurrency: 4, maxQueued: 100 });
    const log: string[] = [];
    const first = gate();
    d.push("a", async () => {
      log.push("a1 start");
      await first.opened;
      log.push("a1 end");
    });
    d.push("a", async () => void log.push("a2"));
    await Promise.resolve();
    expect(log).toEqual(["a1 start"]);
    first.open();
    await d.whenIdle();
    expect(log).toEqual(["a1 start", "a1 end", "a2"]);
  });

  it("lets other lanes proceed while one is slow", async () => {
    const d = new Dispatcher({ concurrency: 2, maxQueued: 100 });
    const slow = gate();
    const log: string[] = [];
    d.push("slow", async () => {
      await slow.opened;
      log.push("slow");
    });
    for (let i = 0; i < 3; i++) d.push("fast", async () => void log.push(`fast${i}`));
    await new Promise((r) => setTimeout(r, 0));
    expect(log).toEqual(["fast0", "fast1", "fast2"]);
    slow.open();
    await d.whenIdle();
    expect(log.at(-1)).toBe("slow");
  });

  it("never runs more lanes than the concurrency limit", async () => {
    const d = new Dispatcher({ concurrency: 3, maxQueued: 1000 });
    let running = 0;
    let peak = 0;
    for (let i = 0; i < 50; i++) {
      d.push(`lane${i % 10}`, async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 0));
        running--;
      });
    }
    await d.whenIdle();
    expect(peak).toBe(3);
  });

  it("holds back whenReady() while too many tasks wait, and releases it as they finish", async () => {
    const d = new Dispatcher({ concurrency: 1, maxQueued: 2 });
    const block = gate();
    d.push("x", () => block.opened);
    d.push("x", async () => undefined);
    d.push("y", async () => undefined);
    let ready = false;
    const waiting = d.whenReady().then(() => (ready = true));
    await Promise.resolve();
    expect(ready).toBe(false);
    block.open();
    await waiting;
    expect(ready).toBe(true);
    await d.whenIdle();
    expect(d.pending).toBe(0);
  });

  it("wakes whenReady() at the low-water mark, so a full intake takes a quarter of maxQueued per wait", async () => {
    const d = new Dispatcher({ concurrency: 1, maxQueued: 8 });
    const blocks = Array.from({ length: 9 }, () => gate());
    // One running, eight waiting: full.
    for (const block of blocks) d.push("x", () => block.opened);
    expect(d.hasRoom).toBe(false);
    let ready = false;
    void d.whenReady().then(() => (ready = true));
    // One finished: room for one, but a waiter woken now would take one message and wait again.
    blocks[0]!.open();
    await new Promise((r) => setTimeout(r, 0));
    expect(d.hasRoom).toBe(true);
    expect(ready).toBe(false);
    // Two finished: down to six waiting, a quarter of maxQueued below it.
    blocks[1]!.open();
    await new Promise((r) => setTimeout(r, 0));
    expect(ready).toBe(true);
    let pushed = 0;
    while (d.hasRoom) {
      d.push("x", async () => undefined);
      pushed++;
    }
    expect(pushed).toBe(2);
    for (const block of blocks) block.open();
    await d.whenIdle();
    expect(d.pending).toBe(0);
  });

  it("releases the lane of a task that hands its message over, and counts the message as held until delivered", async () => {
    const d = new Dispatcher({ concurrency: 1, maxQueued: 2 });
    const delivered = gate();
    const log: string[] = [];
    d.push("a", async () => {
      log.push("a1");
      return { delivered: delivered.opened };
    });
    d.push("a", async () => void log.push("a2"));
    await new Promise((r) => setTimeout(r, 0));
    // The lane moved on at once; the handed-over message still counts.
    expect(log).toEqual(["a1", "a2"]);
    expect(d.pending).toBe(1);
    d.push("b", async () => undefined);
    d.push("b", async () => undefined);
    // b's tasks ran; the held message alone keeps the dispatcher from idle.
    let idle = false;
    void d.whenIdle().then(() => (idle = true));
    await new Promise((r) => setTimeout(r, 0));
    expect(idle).toBe(false);
    expect(d.hasRoom).toBe(true);
    d.push("c", async () => undefined); // runs at once
    d.push("c", async () => undefined); // waits: one waiting plus one held fill maxQueued 2
    expect(d.hasRoom).toBe(false);
    delivered.open();
    await d.whenIdle();
    expect(d.pending).toBe(0);
    expect(d.hasRoom).toBe(true);
  });

  it("reports a task's error and goes on with the lane", async () => {
    const errors: string[] = [];
    const d = new Dispatcher({
      concurrency: 1,
      maxQueued: 10,
      onError: (e, key) => errors.push(`${key}:${(e as Error).message}`),
    });
    const log: string[] = [];
    d.push("k", async () => {
      throw new Error("boom");
    });
    d.push("k", async () => void log.push("after"));
    await d.whenIdle();
    expect(errors).toEqual(["k:boom"]);
    expect(log).toEqual(["after"]);
  });
});

describe("RecentIds", () => {
  it("reports duplicates and forgets the oldest past capacity", () => {
    const ids = new RecentIds(3);
    expect(ids.add(1)).toBe(true);
    expect(ids.add(1)).toBe(false);
    ids.add(2);
    ids.add(3);
    ids.add(4);
    expect(ids.has(1)).toBe(false);
    expect(ids.has(4)).toBe(true);
    expect(ids.size).toBe(3);
  });

  it("answers as a Set with the oldest forgotten would, over many colliding adds", () => {
    const capacity = 37;
    const ids = new RecentIds(capacity);
    const model: number[] = [];
    let seed = 7;
    const random = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0);
    let mismatches = 0;
    for (let n = 0; n < 20_000; n++) {
      // Small IDs collide often; huge ones exercise the high bits of the hash.
      const id = n % 5 === 0 ? 2 ** 40 + (random() % 200) : 1 + (random() % 200);
      const fresh = !model.includes(id);
      if (fresh) {
        model.push(id);
        if (model.length > capacity) model.shift();
      }
      if (ids.add(id) !== fresh) mismatches++;
      const probe = 1 + (random() % 200);
      if (ids.has(probe) !== model.includes(probe)) mismatches++;
    }
    expect(mismatches).toBe(0);
    expect(ids.size).toBe(capacity);
    expect(model.every((id) => ids.has(id))).toBe(true);
    expect(() => ids.add(0)).toThrow(/positive integer/);
  });
});
