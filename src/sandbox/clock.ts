// The sandbox's sense of time: real by default, or a manual clock tests move forward.

export interface Clock {
  /** Milliseconds since the UNIX epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; listeners run after each move (scheduled deliveries, cron). */
export class ManualClock implements Clock {
  #now: number;
  readonly #listeners = new Set<(now: number) => void>();

  constructor(start: number | Date = Date.now()) {
    this.#now = typeof start === "number" ? start : start.getTime();
  }

  now(): number {
    return this.#now;
  }

  /** Moves time forward by `ms` and notifies listeners. */
  advance(ms: number): void {
    this.set(this.#now + ms);
  }

  set(time: number | Date): void {
    this.#now = typeof time === "number" ? time : time.getTime();
    for (const listener of this.#listeners) listener(this.#now);
  }

  onChange(listener: (now: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
