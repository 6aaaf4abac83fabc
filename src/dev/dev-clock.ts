// The `bot dev` clock: real time plus an offset the developer moves forward ("+1 h" fires reminders and cron jobs).
import { ManualClock } from "../sandbox/clock.js";
import type { SchedulerClock, TimerHandle } from "../scheduler/clock.js";

interface PendingTimer {
  id: number;
  at: number;
  callback: () => void;
  real: NodeJS.Timeout;
}

/** How often the sandbox side (scheduled messages, idle queues) looks at the time. */
const TICK_MS = 1_000;

/**
 * Time that flows as usual and can be moved ahead. It is the sandbox's clock (a ManualClock, so
 * scheduled messages are delivered as it moves, and on a tick each second) and the cron
 * scheduler's (timers fire when real time or a jump reaches them), and the bot's `now`.
 *
 * @example
 * const clock = new DevClock();
 * await clock.jump(3_600_000); // an hour later: due reminders and cron jobs fire, in time order
 */
export class DevClock extends ManualClock implements SchedulerClock {
  #offset = 0;
  #nextId = 1;
  readonly #timers = new Map<number, PendingTimer>();
  readonly #ticker: NodeJS.Timeout;

  constructor() {
    super(Date.now());
    this.#ticker = setInterval(() => super.set(this.now()), TICK_MS);
    this.#ticker.unref();
  }

  override now(): number {
    return Date.now() + this.#offset;
  }

  /** How far ahead of real time the clock is, in ms. */
  get offset(): number {
    return this.#offset;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const id = this.#nextId++;
    const at = this.now() + Math.max(0, delayMs);
    const real = setTimeout(() => this.#fire(id), Math.min(Math.max(0, delayMs), 2 ** 31 - 1));
    real.unref();
    this.#timers.set(id, { id, at, callback, real });
    return { id };
  }

  clearTimer(handle: TimerHandle): void {
    if (typeof handle !== "object" || !("id" in handle) || typeof handle.id !== "number") return;
    clearTimeout(this.#timers.get(handle.id)?.real);
    this.#timers.delete(handle.id);
  }

  #fire(id: number): void {
    const timer = this.#timers.get(id);
    if (!timer) return;
    // A long timer re-arms until its instant is reached.
    if (timer.at > this.now()) {
      timer.real = setTimeout(() => this.#fire(id), Math.min(timer.at - this.now(), 2 ** 31 - 1));
      timer.real.unref();
      return;
    }
    this.#timers.delete(id);
    clearTimeout(timer.real);
    timer.callback();
  }

  /** Moves time ahead by `ms`: what falls due (cron timers, scheduled messages) fires in time order. */
  async jump(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError(`the clock only moves forward, not by ${ms} ms`);
    const target = this.now() + ms;
    for (;;) {
      const due = [...this.#timers.values()]
        .filter((t) => t.at <= target)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      this.#offset = Math.max(this.#offset, (due?.at ?? target) - Date.now());
      super.set(this.now());
      if (!due) break;
      this.#fire(due.id);
      await settle();
    }
    await settle();
  }

  /** Stops the tick and every timer. */
  close(): void {
    clearInterval(this.#ticker);
    for (const timer of this.#timers.values()) clearTimeout(timer.real);
    this.#timers.clear();
  }
}

/** Lets ready promise and I/O callbacks run: a few event loop turns. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
