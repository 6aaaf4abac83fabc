// The scheduler's time source: real timers by default, a manual clock that tests move by hand.

/** An opaque handle returned by `setTimer`. */
export type TimerHandle = { readonly id: number } | ReturnType<typeof setTimeout>;

/** What the scheduler needs of time: the current instant and one-shot timers. */
export interface SchedulerClock {
  /** Milliseconds since the UNIX epoch. */
  now(): number;
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

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

interface PendingTimer {
  id: number;
  at: number;
  callback: () => void;
}

/**
 * A clock that moves only when told to. `advance` fires due timers in time order and lets the jobs
 * they start run their synchronous part and settled promises before it returns.
 *
 * @example
 * const clock = new ManualSchedulerClock(Date.parse("2025-01-06T08:59:00Z"));
 * const scheduler = new Scheduler({ clock });
 * scheduler.schedule("0 9 * * *", job, { timezone: "UTC" });
 * await clock.advance(60_000); // job has run once
 */
export class ManualSchedulerClock implements SchedulerClock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, PendingTimer>();

  constructor(start: number | Date = Date.now()) {
    this.#now = typeof start === "number" ? start : start.getTime();
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, delayMs), callback });
    return { id };
  }

  clearTimer(handle: TimerHandle): void {
    if (typeof handle === "object" && "id" in handle && typeof handle.id === "number")
      this.#timers.delete(handle.id);
  }

  /** Number of timers waiting to fire. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, earliest first. */
  async advance(ms: number): Promise<void> {
    await this.set(this.#now + ms);
  }

  /**
   * Moves time to `time` (never backwards) as if it passed continuously: each due timer fires at
   * its own instant, so a job every minute runs once per minute crossed.
   */
  async set(time: number | Date): Promise<void> {
    const target = typeof time === "number" ? time : time.getTime();
    await settle();
    for (;;) {
      const due = [...this.#timers.values()]
        .filter((t) => t.at <= target)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#timers.delete(due.id);
      this.#now = Math.max(this.#now, due.at);
      due.callback();
      await settle();
    }
    this.#now = Math.max(this.#now, target);
    await settle();
  }

  /**
   * Jumps to `time` at once, as a process that was suspended wakes up: timers that fell due fire
   * afterwards, all seeing the new time.
   */
  async jump(time: number | Date): Promise<void> {
    this.#now = Math.max(this.#now, typeof time === "number" ? time : time.getTime());
    await this.set(this.#now);
  }
}

/** Lets pending promise callbacks run: a few macrotask turns. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
