import { describe, expect, it, vi } from "vitest";
import type { MessageContext } from "../../src/context/context.js";
import { HandlerTimeoutError, TimeLimits } from "../../src/dispatch/time-limit.js";

/** The parts of a context the limits touch. */
function fakeContext(id: number) {
  const ctx = {
    message: { id },
    waitingForAnswer: false,
    cancelled: undefined as unknown,
    cancel(reason: unknown) {
      ctx.cancelled = reason;
    },
  };
  return ctx;
}
const asCtx = (c: ReturnType<typeof fakeContext>) => c as unknown as MessageContext;
const timers = () => process.getActiveResourcesInfo().filter((t) => t === "Timeout").length;
const never = () => new Promise<void>(() => undefined);

describe("handler time limits", () => {
  it("limits of its own, its plugin's, the default; false is none", () => {
    const limits = new TimeLimits({ defaultMs: 1_000, plugins: { slow: 5_000, free: false } });
    expect(limits.limitFor("any", undefined)).toBe(1_000);
    expect(limits.limitFor("slow", undefined)).toBe(5_000);
    expect(limits.limitFor("slow", 200)).toBe(200);
    expect(limits.limitFor("free", undefined)).toBeUndefined();
    expect(limits.limitFor("any", false)).toBeUndefined();
  });

  /** Waits (at most 2 s) until `ok()`; a sweep ends within one 50 ms period of the last call. */
  async function eventually(ok: () => boolean): Promise<void> {
    for (let waited = 0; !ok() && waited < 2_000; waited += 10)
      await new Promise((r) => setTimeout(r, 10));
  }

  it("arms no timer per call: a thousand calls that end share one sweep, gone once none runs", async () => {
    const limits = new TimeLimits({ defaultMs: 60_000 });
    const before = timers();
    const runs = Array.from({ length: 1_000 }, (_, i) =>
      limits.run(Promise.resolve(), asCtx(fakeContext(i)), "p", "listener", 60_000),
    );
    expect(timers() - before).toBeLessThanOrEqual(1);
    await Promise.all(runs);
    await eventually(() => timers() === before);
    expect(timers()).toBe(before);
  });

  it("calls one after another (one command at a time) share one sweep too, which stops itself after", async () => {
    const limits = new TimeLimits({ defaultMs: 60_000 });
    const before = timers();
    const setInterval = vi.spyOn(globalThis, "setInterval");
    try {
      for (let i = 0; i < 200; i++)
        await limits.run(Promise.resolve(), asCtx(fakeContext(i)), "p", "listener", 60_000);
      // Setting and clearing an interval per call made 200 here.
      expect(setInterval).toHaveBeenCalledTimes(1);
    } finally {
      setInterval.mockRestore();
    }
    await eventually(() => timers() === before);
    expect(timers()).toBe(before);
  });

  it("aborts an overrun (ctx.signal's reason a HandlerTimeoutError), counts it at half time once, and spares one waiting in ask", async () => {
    const halfway: number[] = [];
    const overran: number[] = [];
    const limits = new TimeLimits({
      hooks: {
        halfway: (r) => halfway.push(r.messageId),
        overran: (r) => overran.push(r.messageId),
      },
    });
    const hung = fakeContext(1);
    const asking = fakeContext(2);
    asking.waitingForAnswer = true;
    const outcome = limits
      .run(never(), asCtx(hung), "hang", "command hang", 200)
      .catch((e: unknown) => e);
    void limits.run(never(), asCtx(asking), "hang", "command ask", 200);
    const error = (await outcome) as HandlerTimeoutError;
    expect(error).toBeInstanceOf(HandlerTimeoutError);
    expect(error.message).toBe(
      'plugin "hang": command hang ran past its time limit of 200 ms on message 1; it was aborted (ctx.signal) and its concurrency slot freed',
    );
    expect(error.counted).toBe(true);
    expect(hung.cancelled).toBe(error);
    expect(halfway).toEqual([1]);
    expect(overran).toEqual([1]);
    expect(asking.cancelled).toBeUndefined();
    expect(limits.overrunning().map((r) => r.messageId)).toEqual([1]);
    expect(limits.slow()).toEqual([]);
  });
});
