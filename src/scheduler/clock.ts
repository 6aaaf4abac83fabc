// The scheduler's time source: real timers by default, a manual clock that tests move by hand.

import { ManualClock, settle, type SchedulerClock, type TimerHandle } from "../time/clock.js";

export type { SchedulerClock, TimerHandle };

/** Node's timers cannot wait longer than this (about 24.8 days); longer waits are re-armed. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Real time. Timers are unref'd: a pending cron job alone does not keep the process alive. */
export const systemClock: SchedulerClock = {
  now: () => Date.now(),
  setTimer(callback, delayMs) {
    const handle = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_MS));
    handle.unref();
    return handle;
  },
  clearTimer(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/**
 * The manual clock (src/time/clock.ts) as the scheduler's tests use it: a move never goes
 * backwards, and first lets the work already started run, so a job it is about to schedule is
 * there before time passes. `advance` fires due timers in time order and lets the jobs they start
 * run their synchronous part and settled promises before it returns.
 *
 * @example
 * const clock = new ManualSchedulerClock(Date.parse("2025-01-06T08:59:00Z"));
 * const scheduler = new Scheduler({ clock });
 * scheduler.schedule("0 9 * * *", job, { timezone: "UTC" });
 * await clock.advance(60_000); // job has run once
 */
export class ManualSchedulerClock extends ManualClock {
  /** Number of timers waiting to fire. */
  get pending(): number {
    return this.pendingTimers;
  }

  /**
   * Moves time to `time` (never backwards) as if it passed continuously: each due timer fires at
   * its own instant, so a job every minute runs once per minute crossed.
   */
  override async set(time: number | Date): Promise<void> {
    const target = typeof time === "number" ? time : time.getTime();
    await settle();
    await super.set(Math.max(this.now(), target));
  }

  /**
   * Jumps to `time` at once, as a process that was suspended wakes up: timers that fell due fire
   * afterwards, all seeing the new time.
   */
  async jump(time: number | Date): Promise<void> {
    this.moveTo(Math.max(this.now(), typeof time === "number" ? time : time.getTime()));
    await this.set(this.now());
  }
}
