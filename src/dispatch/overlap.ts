// Overlapping messages: what a handler does with messages that reach its conversation while it still runs.
import { systemClock, type SchedulerClock, type TimerHandle } from "../scheduler/clock.js";
import type { Overlap, OverlapMode, OverlapStrategy } from "../model/overlap.js";

/** One call of the handler. */
export interface OverlapCall<M> {
  /** The message the call answers (the newest of its batch). */
  message: M;
  /** Messages that arrived meanwhile and get no call of their own, oldest first. */
  skipped: M[];
  /** Aborted when a newer message interrupts the call (`interrupt` only). */
  signal: AbortSignal;
}

/** How a message held by the controller ended: its call returned or threw, or the controller closed first. */
export type OverlapOutcome = "handled" | "failed" | "abandoned";

interface Entry<M> {
  message: M;
  settle: (outcome: OverlapOutcome, error?: unknown) => void;
}

interface Running<M> {
  entries: Entry<M>[];
  abort: AbortController;
  /** Interrupted: its messages went on to the next call. */
  carried: boolean;
}

/** What the controller needs of time: one-shot timers (a test clock in tests). */
export type OverlapTimers = Pick<SchedulerClock, "setTimer" | "clearTimer">;

export interface OverlapControllerOptions {
  /** Timers for burst windows. Default: real timers. */
  timers?: OverlapTimers;
  /** Called when nothing is held or running any more (the owner may drop the controller). */
  onIdle?: () => void;
}

const DEFAULT_QUIET_MS = 1_500;
const DEFAULT_MAX_CONCURRENT = 4;
const DEFAULT_MAX_PENDING = 100;

/**
 * Checks a strategy (a mode name or an object) and fills in its defaults; a wrong one throws an
 * error naming `where` (e.g. `plugin "agent": command "ask"`).
 */
export function resolveOverlap(overlap: Overlap, where: string): Required<OverlapStrategy> {
  const strategy = typeof overlap === "string" ? { mode: overlap } : overlap;
  const modes: readonly OverlapMode[] = ["queue", "latest", "burst", "interrupt", "concurrent"];
  if (typeof strategy !== "object" || strategy === null || !modes.includes(strategy.mode))
    throw new Error(
      `${where}: overlap must be one of ${modes.map((m) => `"${m}"`).join(", ")} or { mode, ... }; got ${JSON.stringify(overlap)}`,
    );
  const count = (key: "maxConcurrent" | "maxPending", fallback: number): number => {
    const value = strategy[key] ?? fallback;
    if (!Number.isInteger(value) || value < 1)
      throw new Error(
        `${where}: overlap.${key} must be a whole number of at least 1; got ${value}`,
      );
    return value;
  };
  const quietMs = strategy.quietMs ?? DEFAULT_QUIET_MS;
  if (!Number.isFinite(quietMs) || quietMs < 0)
    throw new Error(`${where}: overlap.quietMs must be 0 or more milliseconds; got ${quietMs}`);
  return {
    mode: strategy.mode,
    quietMs,
    maxConcurrent: count("maxConcurrent", DEFAULT_MAX_CONCURRENT),
    maxPending: count("maxPending", DEFAULT_MAX_PENDING),
  };
}

/**
 * Runs a handler for the messages of one conversation under a strategy. `admit` resolves once the
 * message is held (at once, or when there is room), and its `settle` is told when the message was
 * handled: by its own call, or as `skipped` of a call that finished. So a caller that marks a
 * message delivered only then keeps exactly-once delivery: a crash before that hands the message
 * to the bot again.
 *
 * @example
 * const overlap = new OverlapController({ mode: "burst", quietMs: 1000 }, (call) => answer(call));
 * await overlap.offer(message);
 */
export class OverlapController<M> {
  readonly #mode: OverlapMode;
  readonly #quietMs: number;
  readonly #maxConcurrent: number;
  readonly #maxPending: number;
  readonly #run: (call: OverlapCall<M>) => Promise<void>;
  readonly #timers: OverlapTimers;
  readonly #onIdle: (() => void) | undefined;
  readonly #pending: Entry<M>[] = [];
  readonly #running = new Set<Running<M>>();
  readonly #roomWaiters: (() => void)[] = [];
  #quietTimer: TimerHandle | undefined;
  #closed = false;

  constructor(
    strategy: OverlapStrategy,
    run: (call: OverlapCall<M>) => Promise<void>,
    options: OverlapControllerOptions = {},
  ) {
    this.#mode = strategy.mode;
    this.#quietMs = strategy.quietMs ?? DEFAULT_QUIET_MS;
    this.#maxConcurrent =
      strategy.mode === "concurrent" ? (strategy.maxConcurrent ?? DEFAULT_MAX_CONCURRENT) : 1;
    this.#maxPending = strategy.maxPending ?? DEFAULT_MAX_PENDING;
    if (this.#maxPending < 1) throw new RangeError("overlap: maxPending must be at least 1");
    this.#run = run;
    this.#timers = options.timers ?? systemClock;
    this.#onIdle = options.onIdle;
  }

  /** Messages held and not yet handled (waiting, or carried into the next call). */
  get pending(): number {
    return this.#pending.length;
  }

  /** Calls running now. */
  get running(): number {
    return this.#running.size;
  }

  /** Every message held: waiting, carried into the next call, or in a call running now. */
  held(): M[] {
    return [...this.#pending, ...[...this.#running].flatMap((r) => r.entries)].map(
      (e) => e.message,
    );
  }

  /** Hands a message over; resolves once it was handled (rejects if the call that had it failed). */
  offer(message: M): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.admit(message, (outcome, error) => {
        if (outcome === "handled") resolve();
        else
          reject(
            outcome === "failed" ? error : new Error("overlap: closed before the message ran"),
          );
      }).catch(reject);
    });
  }

  /**
   * Takes a message: resolves once it is held, which waits while `maxPending` messages are held
   * (backpressure: the caller stops, nothing is dropped). `settle` is called once, when the call
   * that took the message ended, or with "abandoned" when the controller closed before any did.
   */
  async admit(
    message: M,
    settle: (outcome: OverlapOutcome, error?: unknown) => void,
  ): Promise<void> {
    while (!this.#closed && this.#pending.length >= this.#maxPending)
      await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
    if (this.#closed) {
      settle("abandoned");
      return;
    }
    this.#pending.push({ message, settle });
    if (this.#mode === "burst") this.#armQuietTimer();
    else this.#pump();
  }

  /** Starts what the strategy allows now. */
  #pump(): void {
    if (this.#pending.length === 0 || this.#closed) return;
    switch (this.#mode) {
      case "queue":
      case "concurrent":
        while (this.#running.size < this.#maxConcurrent && this.#pending.length > 0)
          this.#start(this.#take(1));
        return;
      case "latest":
        if (this.#running.size === 0) this.#start(this.#take(this.#pending.length));
        return;
      case "burst":
        return; // the quiet timer starts bursts
      case "interrupt":
        if (this.#running.size === 0) this.#start(this.#take(this.#pending.length));
        else for (const call of this.#running) this.#interrupt(call);
        return;
    }
  }

  #take(n: number): Entry<M>[] {
    const taken = this.#pending.splice(0, n);
    for (const wake of this.#roomWaiters.splice(0, taken.length)) wake();
    return taken;
  }

  #armQuietTimer(): void {
    if (this.#quietTimer !== undefined) this.#timers.clearTimer(this.#quietTimer);
    this.#quietTimer = this.#timers.setTimer(() => {
      this.#quietTimer = undefined;
      if (this.#running.size === 0 && this.#pending.length > 0 && !this.#closed)
        this.#start(this.#take(this.#pending.length));
    }, this.#quietMs);
  }

  /** The running call gives up its messages to the next call and is told to stop. */
  #interrupt(call: Running<M>): void {
    if (call.carried) return;
    call.carried = true;
    this.#pending.unshift(...call.entries);
    call.abort.abort(new Error("interrupted by a newer message"));
  }

  #start(entries: Entry<M>[]): void {
    const call: Running<M> = { entries, abort: new AbortController(), carried: false };
    this.#running.add(call);
    const messages = entries.map((e) => e.message);
    const run = Promise.resolve().then(() =>
      this.#run({
        message: messages.at(-1)!,
        skipped: messages.slice(0, -1),
        signal: call.abort.signal,
      }),
    );
    void run
      .then(
        () => {
          if (!call.carried) for (const e of entries) e.settle("handled");
        },
        (error: unknown) => {
          if (!call.carried) for (const e of entries) e.settle("failed", error);
        },
      )
      .finally(() => {
        this.#running.delete(call);
        if (this.#mode === "burst" && this.#pending.length > 0 && !this.#closed)
          this.#armQuietTimer();
        else this.#pump();
        if (this.#pending.length === 0 && this.#running.size === 0) this.#onIdle?.();
      });
  }

  #abandonPending(): void {
    for (const e of this.#pending.splice(0)) e.settle("abandoned");
  }

  /**
   * Stops taking messages (the bot is stopping): the quiet timer stops, messages no call has taken
   * are settled "abandoned" (unhandled: after a restart they are handed to the bot again), and
   * running calls go on to their end.
   */
  close(): void {
    this.#closed = true;
    if (this.#quietTimer !== undefined) this.#timers.clearTimer(this.#quietTimer);
    this.#quietTimer = undefined;
    // Messages carried over from an interrupted call are abandoned too: no call finished them.
    this.#abandonPending();
    for (const wake of this.#roomWaiters.splice(0)) wake();
    if (this.#running.size === 0) this.#onIdle?.();
  }
}
