// Whether a node reaches its Redis: bounded waits and heartbeats, the gate its handlers wait at while Redis is away, and the outages seen.

export interface ReachabilityOptions {
  /** How long a heartbeat may take before Redis counts as unreachable. */
  waitMs: number;
  now: () => number;
  /** Called when Redis becomes unreachable and when it is back (with how long it was away). */
  onChange?(reachable: boolean, awayMs: number): void;
}

/** What `/healthz` and `bot cluster status` show of a node's link to Redis. */
export interface RedisLink {
  redis: "reachable" | "unreachable";
  /** Since when (ms since epoch) Redis has been unreachable from this node. */
  unreachableSince?: number;
  /** Outages this node rode out, and how long the last one was. */
  outages: number;
  lastOutageMs?: number;
}

/**
 * A node's link to Redis. A heartbeat that fails or takes longer than `waitMs` closes the gate:
 * handlers wait at `ready()` (their results are held, none thrown away) until a heartbeat succeeds.
 * A call that hangs (a connection cut off, not refused) is not sent again while it hangs: the next
 * heartbeat waits for the same one, so nothing piles up in the connection's queue.
 */
export class Reachability {
  readonly #o: ReachabilityOptions;
  #reachable = true;
  #since: number | undefined;
  #lastBeatAt: number | undefined;
  #outages = 0;
  #lastOutageMs: number | undefined;
  #waiters: (() => void)[] = [];
  #beat: Promise<unknown> | undefined;

  constructor(options: ReachabilityOptions) {
    this.#o = options;
  }

  get reachable(): boolean {
    return this.#reachable;
  }

  /** Milliseconds since the last heartbeat that succeeded (0 before the first). */
  get sinceBeatMs(): number {
    return this.#lastBeatAt === undefined ? 0 : this.#o.now() - this.#lastBeatAt;
  }

  /** Resolves at once while Redis is reachable, else when it is back. */
  ready(): Promise<void> {
    if (this.#reachable) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Runs one heartbeat (or waits for the one still hanging), bounded by `waitMs`. Returns its answer
   * and how long Redis had been away (0 when it answered the previous heartbeat too); throws when
   * it fails or is late, having marked Redis unreachable.
   */
  async beat<T>(call: () => Promise<T>): Promise<{ answer: T; awayMs: number }> {
    const beat = (this.#beat ??= call().finally(() => (this.#beat = undefined)));
    beat.catch(() => undefined); // a late failure is seen by the next heartbeat
    const { waitMs } = this.#o;
    try {
      const answer = (await within(
        beat,
        waitMs,
        () => `Redis did not answer a heartbeat within ${waitMs} ms`,
      )) as T;
      const awayMs = this.sinceBeatMs;
      this.#lastBeatAt = this.#o.now();
      this.#back();
      return { answer, awayMs };
    } catch (error) {
      this.lost();
      throw error;
    }
  }

  /** Marks Redis unreachable (a failed heartbeat, or none for too long). */
  lost(): void {
    if (!this.#reachable) return;
    this.#reachable = false;
    this.#since = this.#o.now();
    this.#o.onChange?.(false, 0);
  }

  #back(): void {
    if (this.#reachable) return;
    const awayMs = this.#o.now() - (this.#since ?? this.#o.now());
    this.#reachable = true;
    this.#since = undefined;
    this.#outages++;
    this.#lastOutageMs = awayMs;
    this.#o.onChange?.(true, awayMs);
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  link(): RedisLink {
    return {
      redis: this.#reachable ? "reachable" : "unreachable",
      ...(this.#since !== undefined ? { unreachableSince: this.#since } : {}),
      outages: this.#outages,
      ...(this.#lastOutageMs !== undefined ? { lastOutageMs: this.#lastOutageMs } : {}),
    };
  }
}

/** `call`'s answer, or an error saying `describe()` when it takes longer than `ms` (the call goes on). */
export async function within<T>(call: Promise<T>, ms: number, describe: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(describe())), ms);
  });
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}
