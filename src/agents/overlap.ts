// Overlapping messages: what a handler does with messages that reach its conversation while it still runs.

/**
 * - `queue`: each message in turn (the lanes' default).
 * - `latest`: after the running call, one more call with the newest message; the ones in between
 *   are handed to it as `skipped`.
 * - `burst`: wait until no message came for `quietMs`, then one call with the last message and
 *   the others as `skipped` (a person typing three lines gets one answer).
 * - `interrupt`: a new message aborts the running call (`signal`), then a call with the new
 *   message runs; the interrupted messages are handed to it as `skipped`.
 * - `concurrent`: every message at once, up to `maxConcurrent`.
 */
export type OverlapMode = "queue" | "latest" | "burst" | "interrupt" | "concurrent";

export interface OverlapStrategy {
  mode: OverlapMode;
  /** `burst`: the quiet time that ends a burst, in ms. Default 1500. */
  quietMs?: number;
  /** `concurrent`: calls at once. Default 4. */
  maxConcurrent?: number;
  /**
   * Messages held at most (waiting or folded into the next call). When full, `offer` waits for
   * room: the conversation's lane stops, and so, past the dispatcher's bound, does polling. No
   * message is dropped. Default 100.
   */
  maxPending?: number;
}

/** One call of the handler. */
export interface OverlapCall<M> {
  /** The message the call answers (the newest of its batch). */
  message: M;
  /** Messages that arrived meanwhile and get no call of their own, oldest first. */
  skipped: M[];
  /** Aborted when a newer message interrupts the call (`interrupt` only). */
  signal: AbortSignal;
}

interface Entry<M> {
  message: M;
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Running<M> {
  entries: Entry<M>[];
  abort: AbortController;
  /** Interrupted: its messages went on to the next call. */
  carried: boolean;
}

/**
 * Runs a handler for the messages of one conversation under a strategy. `offer` resolves when the
 * message was handled: by its own call, or as `skipped` of a call that finished. So a caller that
 * marks a message delivered only then keeps exactly-once delivery: a crash before that hands the
 * message to the bot again.
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
  readonly #pending: Entry<M>[] = [];
  readonly #running = new Set<Running<M>>();
  readonly #roomWaiters: (() => void)[] = [];
  #quietTimer: NodeJS.Timeout | undefined;

  constructor(strategy: OverlapStrategy, run: (call: OverlapCall<M>) => Promise<void>) {
    this.#mode = strategy.mode;
    this.#quietMs = strategy.quietMs ?? 1_500;
    this.#maxConcurrent = strategy.mode === "concurrent" ? (strategy.maxConcurrent ?? 4) : 1;
    this.#maxPending = strategy.maxPending ?? 100;
    if (this.#maxPending < 1) throw new RangeError("overlap: maxPending must be at least 1");
    this.#run = run;
  }

  /** Messages held and not yet handled (waiting, or carried into the next call). */
  get pending(): number {
    return this.#pending.length;
  }

  /** Calls running now. */
  get running(): number {
    return this.#running.size;
  }

  /** Hands a message over; resolves once it was handled (rejects if the call that had it failed). */
  async offer(message: M): Promise<void> {
    while (this.#pending.length >= this.#maxPending)
      await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
    const handled = new Promise<void>((resolve, reject) => {
      this.#pending.push({ message, resolve, reject });
    });
    if (this.#mode === "burst") this.#armQuietTimer();
    else this.#pump();
    return handled;
  }

  /** Starts what the strategy allows now. */
  #pump(): void {
    if (this.#pending.length === 0) return;
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
    clearTimeout(this.#quietTimer);
    this.#quietTimer = setTimeout(() => {
      this.#quietTimer = undefined;
      if (this.#running.size === 0 && this.#pending.length > 0)
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
          if (!call.carried) for (const e of entries) e.resolve();
        },
        (error: unknown) => {
          if (!call.carried) for (const e of entries) e.reject(error);
        },
      )
      .finally(() => {
        this.#running.delete(call);
        if (this.#mode === "burst" && this.#pending.length > 0) this.#armQuietTimer();
        else this.#pump();
      });
  }

  /** Stops the quiet timer (the bot is stopping); waiting messages stay unhandled. */
  close(): void {
    clearTimeout(this.#quietTimer);
  }
}
