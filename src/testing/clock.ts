// The harness's fake clock: one time for the sandbox (scheduled messages) and the bot's cron jobs.
import { ManualClock, settle } from "../time/clock.js";
import { parseDuration } from "../context/time.js";

/**
 * A clock that moves only when a test says so. It is the sandbox's clock (scheduled messages are
 * delivered when it passes their time) and a `SchedulerClock` (cron timers fire as it passes
 * them), so one `advance` drives both, in time order.
 *
 * @example
 * const t = await createTestBot({ plugins: [remind], now: "2025-03-03T08:00:00Z" });
 * await t.send("!remind me in 2 hours to stretch");
 * await t.clock.advance("2h");
 * await t.expectReply(/stretch/);
 */
export class TestClock extends ManualClock {
  constructor(start: number | Date | string = Date.now()) {
    super(typeof start === "string" ? parseStart(start) : start);
  }

  /**
   * Moves time forward by `by`: milliseconds or a duration such as `"2h"`, `"90 minutes"`, `"1d"`.
   * Scheduled messages and cron timers that fall due fire at their own instants, earliest first.
   */
  override async advance(by: number | string): Promise<void> {
    const ms = typeof by === "number" ? by : parseDuration(by);
    if (ms === undefined || !Number.isFinite(ms) || ms < 0)
      throw new RangeError(`clock.advance: "${by}" is not a duration like "2h" or 90000`);
    await this.set(this.now() + ms);
  }

  /**
   * Moves time to `time` (never backwards), as `advance` does, once what the test set going has
   * run its ready callbacks (so a timer a handler is about to set is there before time passes).
   */
  override async set(time: number | Date | string): Promise<void> {
    const target =
      typeof time === "string"
        ? parseStart(time)
        : typeof time === "number"
          ? time
          : time.getTime();
    if (target < this.now())
      throw new RangeError(
        `clock.set: ${new Date(target).toISOString()} is before the clock's ${new Date(this.now()).toISOString()}; time only moves forward`,
      );
    await settle();
    await super.set(target);
  }
}

function parseStart(text: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new RangeError(`clock: "${text}" is not a date (ISO 8601 expected)`);
  return ms;
}
