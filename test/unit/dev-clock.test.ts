import { afterEach, describe, expect, it } from "vitest";
import { DevClock } from "../../src/dev/dev-clock.js";

describe("DevClock", () => {
  let clock: DevClock | undefined;
  afterEach(() => clock?.close());

  it("follows real time, and a jump fires due timers in time order and tells listeners", async () => {
    clock = new DevClock();
    expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1_000);
    const fired: string[] = [];
    clock.setTimer(() => fired.push("2h"), 2 * 3_600_000);
    clock.setTimer(() => fired.push("1h"), 3_600_000);
    const cancelled = clock.setTimer(() => fired.push("never"), 1_800_000);
    clock.clearTimer(cancelled);
    const seen: number[] = [];
    clock.onChange((now) => seen.push(now));

    const before = clock.now();
    await clock.jump(90 * 60_000);
    expect(fired).toEqual(["1h"]);
    expect(clock.now() - before).toBeGreaterThanOrEqual(90 * 60_000);
    expect(clock.offset).toBeGreaterThan(89 * 60_000);
    await clock.jump(3_600_000);
    expect(fired).toEqual(["1h", "2h"]);
    expect(seen.length).toBeGreaterThan(0);
    expect(clock.now() - Date.now()).toBeGreaterThanOrEqual(150 * 60_000 - 1_000);
  });

  it("moves only forward", async () => {
    clock = new DevClock();
    await expect(clock.jump(-1)).rejects.toThrow(/only moves forward/);
  });
});
