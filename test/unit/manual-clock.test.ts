// The one manual clock (src/time/clock.ts): listeners and timers in time order, and the clocks of the sandbox, scheduler, harness and dev console built on it.
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/time/clock.js";
import { ManualClock as SandboxManualClock } from "../../src/sandbox/index.js";
import { ManualSchedulerClock } from "../../src/index.js";
import { TestClock } from "../../src/testing/index.js";
import { DevClock } from "../../src/dev/dev-clock.js";

describe("the manual clock", () => {
  it("moves at once when no timer falls due, so a caller that does not await sees the new time", () => {
    const clock = new ManualClock(1_000);
    const heard: number[] = [];
    clock.onChange((now) => heard.push(now));
    void clock.advance(500);
    expect([clock.now(), heard]).toEqual([1_500, [1_500]]);
  });

  it("fires timers at their own instants, earliest first, telling listeners each instant before", async () => {
    const clock = new ManualClock(0);
    const log: string[] = [];
    clock.onChange((now) => log.push(`now ${now}`));
    clock.setTimer(() => log.push(`b at ${clock.now()}`), 200);
    clock.setTimer(() => log.push(`a at ${clock.now()}`), 100);
    const dropped = clock.setTimer(() => log.push("dropped"), 150);
    clock.setTimer(() => clock.setTimer(() => log.push(`c at ${clock.now()}`), 50), 120);
    clock.clearTimer(dropped);
    await clock.advance(300);
    expect(log).toEqual([
      "now 100",
      "a at 100",
      "now 120",
      "now 170",
      "c at 170",
      "now 200",
      "b at 200",
      "now 300",
    ]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("is the one class under the sandbox's, the scheduler's, the harness's and the dev console's clocks", () => {
    const dev = new DevClock();
    try {
      for (const clock of [
        new SandboxManualClock(0),
        new ManualSchedulerClock(0),
        new TestClock(0),
        dev,
      ])
        expect(clock).toBeInstanceOf(ManualClock);
    } finally {
      dev.close();
    }
  });

  it("keeps each clock's own rules: the scheduler's never goes back, the harness's refuses to", async () => {
    const scheduler = new ManualSchedulerClock(5_000);
    await scheduler.set(1_000);
    expect(scheduler.now()).toBe(5_000);
    const test = new TestClock("2026-01-01T00:00:00Z");
    await expect(test.set("2025-01-01T00:00:00Z")).rejects.toThrow(/time only moves forward/);
    let fired = 0;
    test.setTimer(() => fired++, 7_200_000);
    await test.advance("2h");
    expect(fired).toBe(1);
  });

  it("the dev console's clock fires a timer when real time reaches it, and a jump fires the rest in order", async () => {
    const clock = new DevClock();
    try {
      const log: string[] = [];
      clock.setTimer(() => log.push("soon"), 5);
      clock.setTimer(() => log.push("in an hour"), 3_600_000);
      const deadline = Date.now() + 5_000;
      while (log.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(log).toEqual(["soon"]);
      await clock.jump(3_600_000);
      expect(log).toEqual(["soon", "in an hour"]);
      expect(clock.offset).toBeGreaterThanOrEqual(3_590_000);
    } finally {
      clock.close();
    }
  });
});
