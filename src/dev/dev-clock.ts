// The `bot dev` clock: real time plus an offset the developer moves forward ("+1 h" fires reminders and cron jobs).
import { ManualClock, type TimerHandle } from "../time/clock.js";

/** How often the sandbox side (scheduled messages, idle queues) looks at the time. */
const TICK_MS = 1_000;
/** Node's timers cannot wait longer than this; a longer one is re-armed. */
const LONGEST_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Time that flows as usual and can be moved ahead: the manual clock (src/time/clock.ts) read as
 * real time plus an offset. It is the sandbox's clock (scheduled messages are delivered as it
 * moves, and on a tick each second), the cron scheduler's (its timers fire when real time or a
 * jump reaches them), and the bot's `now`.
 *
 * @example
 * const clock = new DevClock();
 * await clock.jump(3_600_000); // an hour later: due reminders and cron jobs fire, in time order
 */
export class DevClock extends ManualClock {
  #offset = 0;
  /** The real timeout behind each timer, so that real time fires it too. */
  readonly #real = new Map<number, { at: number; handle: NodeJS.Timeout }>();
  readonly #ticker: NodeJS.Timeout;

  constructor() {
    super(Date.now());
    this.#ticker = setInterval(() => void super.set(this.now()), TICK_MS);
    this.#ticker.unref();
  }

  override now(): number {
    return Date.now() + this.#offset;
  }

  /** How far ahead of real time the clock is, in ms. */
  get offset(): number {
    return this.#offset;
  }

  override setTimer(callback: () => void, delayMs: number): TimerHandle {
    let id = 0;
    const handle = super.setTimer(() => {
      this.#forget(id);
      callback();
    }, delayMs) as { id: number };
    id = handle.id;
    this.#arm(id, this.now() + Math.max(0, delayMs));
    return handle;
  }

  override clearTimer(handle: TimerHandle): void {
    if (typeof handle === "object" && "id" in handle && typeof handle.id === "number")
      this.#forget(handle.id);
    super.clearTimer(handle);
  }

  /** Moves time ahead by `ms`: what falls due (cron timers, scheduled messages) fires in time order. */
  async jump(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError(`the clock only moves forward, not by ${ms} ms`);
    await this.set(this.now() + ms);
  }

  /** Stops the tick and every timer. */
  close(): void {
    clearInterval(this.#ticker);
    for (const id of [...this.#real.keys()]) this.clearTimer({ id });
  }

  /** A move puts the offset ahead (never back: real time keeps flowing) and tells the listeners. */
  protected override moveTo(at: number): void {
    this.#offset = Math.max(this.#offset, at - Date.now());
    super.moveTo(at);
  }

  #arm(id: number, at: number): void {
    const handle = setTimeout(
      () => this.#wake(id),
      Math.min(Math.max(0, at - this.now()), LONGEST_TIMEOUT_MS),
    );
    handle.unref();
    this.#real.set(id, { at, handle });
  }

  /** Real time reached a timer (or a long one's step): fire what is due, or wait on. */
  #wake(id: number): void {
    const timer = this.#real.get(id);
    if (!timer) return;
    if (timer.at > this.now()) this.#arm(id, timer.at);
    else this.fireDue();
  }

  #forget(id: number): void {
    clearTimeout(this.#real.get(id)?.handle);
    this.#real.delete(id);
  }
}
