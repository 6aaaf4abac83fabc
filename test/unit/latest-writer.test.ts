import { describe, expect, it } from "vitest";
import { LatestWriter } from "../../src/state/latest-writer.js";

/** A write whose end the test decides, recording the state each write saw. */
function slowStore() {
  const written: number[] = [];
  const pending: (() => void)[] = [];
  let fail = false;
  let state = 0;
  const writer = new LatestWriter(async () => {
    const seen = state;
    await new Promise<void>((resolve) => pending.push(resolve));
    if (fail) throw new Error("disk full");
    written.push(seen);
  });
  return {
    writer,
    written,
    set: (n: number) => (state = n),
    failNext: (value: boolean) => (fail = value),
    /** Lets the write in progress end (once it has started), then lets queued work start. */
    async release() {
      const settle = async () => {
        for (let i = 0; i < 5; i++) await Promise.resolve();
      };
      await settle();
      const end = pending.shift();
      if (!end) throw new Error("no write in progress");
      end();
      await settle();
    },
  };
}

describe("LatestWriter", () => {
  it("coalesces changes made while a write runs into one write of the newest state", async () => {
    const s = slowStore();
    s.set(1);
    const first = s.writer.schedule();
    await Promise.resolve(); // the first write starts and reads 1
    s.set(2);
    const second = s.writer.schedule();
    s.set(3);
    const third = s.writer.schedule();
    expect(third).toBe(second);
    await s.release();
    await first;
    await s.release();
    await Promise.all([second, third]);
    expect(s.written).toEqual([1, 3]);
  });

  it("a failed write rejects its callers only; the next write goes ahead", async () => {
    const s = slowStore();
    s.failNext(true);
    s.set(1);
    const failing = s.writer.schedule();
    const outcome = failing.then(
      () => "written",
      (error: Error) => error.message,
    );
    await s.release();
    expect(await outcome).toBe("disk full");
    s.failNext(false);
    s.set(2);
    const next = s.writer.schedule();
    await s.release();
    await next;
    await s.writer.settled();
    expect(s.written).toEqual([2]);
  });
});
