import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { OverlapController, resolveOverlap, type OverlapCall } from "../../src/dispatch/overlap.js";
import type { OverlapMode } from "../../src/model/overlap.js";
import { ManualSchedulerClock } from "../../src/scheduler/clock.js";

/** A handler whose calls finish when the test says so. */
function gatedHandler() {
  const calls: { message: number; skipped: number[]; signal: AbortSignal; finish: () => void }[] =
    [];
  const run = (call: OverlapCall<number>) =>
    new Promise<void>((resolve) => {
      calls.push({ ...call, finish: resolve });
    });
  return { calls, run };
}

const tick = () => vi.advanceTimersByTimeAsync(0);

describe("OverlapController", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("queue: one call per message, in order", async () => {
    const h = gatedHandler();
    const overlap = new OverlapController({ mode: "queue" }, h.run);
    const done = [1, 2, 3].map((m) => overlap.offer(m));
    await tick();
    expect(h.calls.map((c) => c.message)).toEqual([1]);
    h.calls[0]!.finish();
    await done[0];
    await tick();
    expect(h.calls.map((c) => c.message)).toEqual([1, 2]);
    h.calls[1]!.finish();
    await tick();
    h.calls[2]!.finish();
    await Promise.all(done);
    expect(h.calls.map((c) => [c.message, c.skipped])).toEqual([
      [1, []],
      [2, []],
      [3, []],
    ]);
  });

  it("latest: one more call with the newest, the rest handed to it as skipped", async () => {
    const h = gatedHandler();
    const overlap = new OverlapController({ mode: "latest" }, h.run);
    const first = overlap.offer(1);
    await tick();
    const later = [2, 3, 4].map((m) => overlap.offer(m));
    await tick();
    expect(h.calls).toHaveLength(1);
    h.calls[0]!.finish();
    await first;
    await tick();
    expect(h.calls.map((c) => [c.message, c.skipped])).toEqual([
      [1, []],
      [4, [2, 3]],
    ]);
    let settled = false;
    void Promise.all(later).then(() => (settled = true));
    await tick();
    expect(settled).toBe(false); // handled only when the call that has them finishes
    h.calls[1]!.finish();
    await Promise.all(later);
  });

  it("burst: waits for a quiet window, then one call with all of them", async () => {
    const h = gatedHandler();
    const overlap = new OverlapController({ mode: "burst", quietMs: 1000 }, h.run);
    const all = [overlap.offer(1)];
    await vi.advanceTimersByTimeAsync(600);
    all.push(overlap.offer(2));
    await vi.advanceTimersByTimeAsync(600);
    all.push(overlap.offer(3));
    await vi.advanceTimersByTimeAsync(999);
    expect(h.calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.calls.map((c) => [c.message, c.skipped])).toEqual([[3, [1, 2]]]);
    // A message during the call waits for the call and then its own quiet window.
    all.push(overlap.offer(4));
    await vi.advanceTimersByTimeAsync(5000);
    expect(h.calls).toHaveLength(1);
    h.calls[0]!.finish();
    await vi.advanceTimersByTimeAsync(999);
    expect(h.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.calls[1]!.message).toBe(4);
    h.calls[1]!.finish();
    await Promise.all(all);
  });

  it("interrupt: aborts the running call and hands its message to the next one", async () => {
    const h = gatedHandler();
    const overlap = new OverlapController({ mode: "interrupt" }, h.run);
    const first = overlap.offer(1);
    await tick();
    const second = overlap.offer(2);
    await tick();
    expect(h.calls[0]!.signal.aborted).toBe(true);
    expect(h.calls).toHaveLength(1); // the next waits until the interrupted one returns
    h.calls[0]!.finish();
    await tick();
    expect(h.calls.map((c) => [c.message, c.skipped])).toEqual([
      [1, []],
      [2, [1]],
    ]);
    let firstDone = false;
    void first.then(() => (firstDone = true));
    await tick();
    expect(firstDone).toBe(false); // message 1 counts as handled with the call that took it over
    h.calls[1]!.finish();
    await Promise.all([first, second]);
  });

  it("concurrent: up to maxConcurrent calls at once", async () => {
    const h = gatedHandler();
    const overlap = new OverlapController({ mode: "concurrent", maxConcurrent: 2 }, h.run);
    const all = [1, 2, 3].map((m) => overlap.offer(m));
    await tick();
    expect(h.calls.map((c) => c.message)).toEqual([1, 2]);
    h.calls[1]!.finish();
    await tick();
    expect(h.calls.map((c) => c.message)).toEqual([1, 2, 3]);
    h.calls[0]!.finish();
    h.calls[2]!.finish();
    await Promise.all(all);
  });

  it("holds at most maxPending messages: offer waits for room, nothing is dropped", async () => {
    const h = gatedHandler();
    const overlap = new OverlapController({ mode: "latest", maxPending: 2 }, h.run);
    void overlap.offer(1);
    await tick();
    const accepted: number[] = [];
    for (const m of [2, 3, 4]) void overlap.offer(m).then(() => accepted.push(m));
    await tick();
    expect(overlap.pending).toBe(2); // 4 waits for room
    h.calls[0]!.finish();
    await tick();
    expect(h.calls[1]!.skipped).toEqual([2]);
    expect(h.calls[1]!.message).toBe(3);
    h.calls[1]!.finish();
    await tick();
    expect(h.calls[2]!.message).toBe(4);
    h.calls[2]!.finish();
    await tick();
    expect(accepted.sort()).toEqual([2, 3, 4]);
  });

  it("a failing call rejects the offers of every message it had", async () => {
    const overlap = new OverlapController<number>({ mode: "latest" }, async () => {
      throw new Error("boom");
    });
    await expect(overlap.offer(1)).rejects.toThrow("boom");
  });

  it("close: messages no call took are abandoned, a running call finishes as handled", async () => {
    const h = gatedHandler();
    const overlap = new OverlapController({ mode: "latest" }, h.run);
    const outcomes: [number, string][] = [];
    const settle = (m: number) => (outcome: string) => void outcomes.push([m, outcome]);
    await overlap.admit(1, settle(1));
    await tick();
    await overlap.admit(2, settle(2));
    overlap.close();
    expect(outcomes).toEqual([[2, "abandoned"]]);
    await overlap.admit(3, settle(3)); // after close: abandoned at once, never run
    h.calls[0]!.finish();
    await tick();
    expect(outcomes).toEqual([
      [2, "abandoned"],
      [3, "abandoned"],
      [1, "handled"],
    ]);
    expect(h.calls).toHaveLength(1);
  });

  it("burst windows run on the timers it is given (a manual clock)", async () => {
    vi.useRealTimers();
    const clock = new ManualSchedulerClock(0);
    const h = gatedHandler();
    let idle = 0;
    const overlap = new OverlapController({ mode: "burst", quietMs: 100 }, h.run, {
      timers: clock,
      onIdle: () => idle++,
    });
    const done = [overlap.offer(1), overlap.offer(2)];
    await clock.advance(99);
    expect(h.calls).toHaveLength(0);
    await clock.advance(1);
    await new Promise((r) => setImmediate(r));
    expect(h.calls.map((c) => [c.message, c.skipped])).toEqual([[2, [1]]]);
    h.calls[0]!.finish();
    await Promise.all(done);
    await new Promise((r) => setImmediate(r));
    expect(idle).toBe(1);
  });

  it("names the handler when a strategy is wrong, and fills in the defaults", () => {
    expect(() => resolveOverlap("sometimes" as OverlapMode, 'plugin "p": hear /x/')).toThrow(
      'plugin "p": hear /x/: overlap must be one of "queue", "latest", "burst", "interrupt", "concurrent" or { mode, ... }; got "sometimes"',
    );
    expect(() => resolveOverlap({ mode: "concurrent", maxConcurrent: 0 }, "h")).toThrow(
      "h: overlap.maxConcurrent must be a whole number of at least 1; got 0",
    );
    expect(resolveOverlap("burst", "h")).toEqual({
      mode: "burst",
      quietMs: 1500,
      maxConcurrent: 4,
      maxPending: 100,
    });
  });
});
