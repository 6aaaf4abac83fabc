// The one manual clock: time that moves when told to, with listeners and one-shot timers fired in time order.

/** An opaque handle returned by `setTimer`. */
export type TimerHandle = { readonly id: number } | ReturnType<typeof setTimeout>;

/** What timed work needs of time: the current instant and one-shot timers. */
export interface SchedulerClock {
  /** Milliseconds since the UNIX epoch. */
  now(): number;
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

interface PendingTimer {
  id: number;
  at: number;
  callback: () => void;
}

/** Epoch milliseconds of a number or a Date. */
const epochMs = (time: number | Date): number => (typeof time === "number" ? time : time.getTime());

/**
 * A clock that moves only when told to. Listeners (`onChange`) hear every move: the sandbox
 * delivers scheduled messages and sweeps idle queues on them. Timers (`setTimer`) fire as time
 * passes them, each at its own instant and earliest first, with listeners told of that instant
 * before it fires: a cron job every minute runs once per minute crossed. A move that no timer
 * falls within happens before `set` or `advance` returns (callers that do not await see it);
 * the promise settles once the work the move started has run its ready callbacks.
 *
 * The sandbox's `ManualClock`, the scheduler's `ManualSchedulerClock`, the harness's
 * `TestClock` and the dev console's clock are this clock, or built on it.
 *
 * @example
 * const clock = new ManualClock(Date.parse("2025-01-06T08:59:00Z"));
 * clock.setTimer(() => console.log("nine o'clock"), 60_000);
 * await clock.advance(60_000); // logs once
 */
export class ManualClock implements SchedulerClock {
  #now: number;
  #nextTimerId = 1;
  readonly #timers = new Map<number, PendingTimer>();
  readonly #listeners = new Set<(now: number) => void>();

  constructor(start: number | Date = Date.now()) {
    this.#now = epochMs(start);
  }

  now(): number {
    return this.#now;
  }

  /** Calls `listener` after every move with the new time; returns the unsubscribe function. */
  onChange(listener: (now: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const id = this.#nextTimerId++;
    this.#timers.set(id, { id, at: this.now() + Math.max(0, delayMs), callback });
    return { id };
  }

  clearTimer(handle: TimerHandle): void {
    if (typeof handle === "object" && "id" in handle && typeof handle.id === "number")
      this.#timers.delete(handle.id);
  }

  /** Timers waiting to fire. */
  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms` (see `set`). */
  advance(ms: number): Promise<void> {
    return this.set(this.now() + ms);
  }

  /** Moves time to `time`, firing every timer that falls due on the way, earliest first. */
  set(time: number | Date): Promise<void> {
    const target = epochMs(time);
    if (this.#nextDue(target) === undefined) {
      this.moveTo(target);
      return settle();
    }
    return this.#runTo(target);
  }

  /** Fires every timer due by now, earliest first (a clock driven by real time calls this). */
  protected fireDue(): void {
    for (let due = this.#nextDue(this.now()); due; due = this.#nextDue(this.now())) {
      this.#timers.delete(due.id);
      due.callback();
    }
  }

  /** Puts the clock at `at` and tells the listeners; a clock with its own sense of now overrides it. */
  protected moveTo(at: number): void {
    this.#now = at;
    for (const listener of this.#listeners) listener(this.now());
  }

  async #runTo(target: number): Promise<void> {
    for (;;) {
      const due = this.#nextDue(target);
      this.moveTo(Math.max(this.now(), due?.at ?? target));
      if (!due) break;
      this.#timers.delete(due.id);
      due.callback();
      await settle();
    }
    await settle();
  }

  #nextDue(by: number): PendingTimer | undefined {
    let next: PendingTimer | undefined;
    for (const timer of this.#timers.values())
      if (
        timer.at <= by &&
        (!next || timer.at < next.at || (timer.at === next.at && timer.id < next.id))
      )
        next = timer;
    return next;
  }
}

/** Lets ready promise and I/O callbacks run: a few event loop turns. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
