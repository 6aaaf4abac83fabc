// Pacing: outgoing calls slow down from the X-RateLimit-* headers before the server has to refuse them; streams share the budget.
import { sleep } from "./backoff.js";

/**
 * The real servers' default per-user rule (`DEFAULT_RATE_LIMITING_RULES`, `api_by_user`): 200
 * requests per 60 s. Used until a response's `X-RateLimit-Limit` says otherwise; the window is
 * not in the headers, so it is read off them: a request just counted frees its place when the
 * window has passed, which is what `X-RateLimit-Reset` says (to the second).
 */
export const DEFAULT_RATE_LIMIT = { requests: 200, windowMs: 60_000 } as const;

/** The part of the budget the edits of all open streams may spend together; the rest is left to replies. */
export const STREAM_SHARE = 0.5;

/** With this part of the budget or less left, stream edits wait for the reset while replies still go. */
export const REPLY_RESERVE = 0.2;

export interface PacingOptions {
  /** Longest single wait for the limit to reset, in milliseconds. Default 60 s. */
  maxWaitMs?: number;
  /** Called after each wait (metrics: `rateLimitWait`). */
  onWait?: (endpoint: string, ms: number) => void;
  /** The current time in epoch milliseconds; injectable for tests. Default `Date.now`. */
  now?: () => number;
  /**
   * A budget shared with other processes using the same bot account (cluster mode: one budget in
   * Redis, src/cluster/pacing.ts). Default: a budget of this client's own.
   */
  budget?: PacingBudget;
}

/**
 * Where the rate-limit budget lives: the remaining requests and reset time from the server's
 * headers, spent one per request. Shared by several processes, it keeps them within one budget.
 */
export interface PacingBudget {
  /** Spends one request: 0 when it may go now, else milliseconds to wait before asking again. */
  spend(now: number): Promise<number>;
  /** Takes the numbers of a response's headers (`reset` in UNIX seconds). */
  observe(headers: { remaining?: number; reset?: number }): void;
}

/**
 * Keeps a local budget of requests from the last `X-RateLimit-Remaining` and `X-RateLimit-Reset`
 * headers: each request spends one; with none left, the next request waits until the reset time.
 *
 * @example
 * const pacer = new Pacer();
 * await pacer.beforeRequest("POST /messages");   // waits only when the budget is spent
 * pacer.observe({ remaining: 0, reset: Date.now() / 1000 + 2 });
 */
export class Pacer {
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  readonly #onWait: ((endpoint: string, ms: number) => void) | undefined;
  readonly #budget: PacingBudget | undefined;
  #remaining: number | undefined;
  /** Epoch milliseconds when the server's limit resets. */
  #resetAt: number | undefined;
  /** `X-RateLimit-Limit`, once a response said it. */
  #limit: number | undefined;
  /** The rule's window as the headers show it (the longest seen, at most an hour). */
  #windowMs: number | undefined;
  /** Streams editing through this client now, and who waits for there to be none. */
  #streams = 0;
  #idle: (() => void)[] = [];

  constructor(options: PacingOptions = {}) {
    this.#maxWaitMs = options.maxWaitMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    this.#onWait = options.onWait;
    this.#budget = options.budget;
  }

  /**
   * Takes the numbers of a response's headers (absent headers leave the budget as it is). The
   * server writes them when it counts the request, so responses of requests that overlapped can
   * be out of date when they arrive (a long poll's, counted when it started, arrive after every
   * send made meanwhile): numbers for an earlier window are ignored, and within one window the
   * lower count holds (the other response did not know of requests sent after it was counted).
   */
  observe(headers: { remaining?: number; reset?: number; limit?: number }): void {
    if (headers.limit !== undefined && headers.limit > 0) this.#limit = headers.limit;
    if (headers.reset !== undefined && headers.remaining !== undefined && headers.remaining > 0) {
      const seen = resetTime(headers.reset) - this.#now();
      if (seen > 0) this.#windowMs = Math.min(3_600_000, Math.max(this.#windowMs ?? 0, seen));
    }
    if (this.#budget)
      return this.#budget.observe({
        remaining: headers.remaining,
        reset: headers.reset === undefined ? undefined : resetTime(headers.reset) / 1000,
      });
    const resetAt = headers.reset === undefined ? undefined : resetTime(headers.reset);
    if (resetAt !== undefined && this.#resetAt !== undefined) {
      if (resetAt < this.#resetAt) return;
      if (resetAt === this.#resetAt && headers.remaining !== undefined) {
        this.#remaining = Math.min(this.#remaining ?? headers.remaining, headers.remaining);
        return;
      }
    }
    if (headers.remaining !== undefined) this.#remaining = headers.remaining;
    if (resetAt !== undefined) this.#resetAt = resetAt;
  }

  /** How long the next request would wait now, in milliseconds. */
  delay(): number {
    const now = this.#now();
    if (this.#resetAt !== undefined && now >= this.#resetAt) {
      this.#remaining = undefined;
      this.#resetAt = undefined;
    }
    if (this.#remaining === undefined || this.#remaining > 0 || this.#resetAt === undefined)
      return 0;
    return Math.min(this.#maxWaitMs, this.#resetAt - now);
  }

  /**
   * Spends one request of the budget, first waiting for the reset when none is left. Returns
   * nothing when there is no wait (the common case), so a caller under budget does not pay for a
   * promise and the ticks of awaiting it on every request. A shared (cluster) budget is asked
   * every time.
   */
  beforeRequest(endpoint: string, signal?: AbortSignal): Promise<void> | undefined {
    if (this.#budget) return this.#spendShared(endpoint, signal);
    const ms = this.delay();
    if (ms > 0) return this.#waitThenSpend(endpoint, ms, signal);
    if (this.#remaining !== undefined) this.#remaining--;
    return undefined;
  }

  /**
   * Counts a streamed answer as open until the returned function is called: open streams share
   * `STREAM_SHARE` of the budget equally (see `editInterval`).
   */
  openStream(): () => void {
    this.#streams++;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      if (--this.#streams === 0) for (const resolve of this.#idle.splice(0)) resolve();
    };
  }

  /** Streams open now. */
  get openStreams(): number {
    return this.#streams;
  }

  /** Resolves once no stream is open (at once when none is). */
  streamsIdle(): Promise<void> {
    if (this.#streams === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /**
   * Least milliseconds between two edits of one open stream: together the open streams spend at
   * most `STREAM_SHARE` of the limit (200 a minute by default: one stream may edit every 600 ms,
   * three every 1.8 s each), so replies, posts and typing notices keep the rest.
   */
  editInterval(): number {
    const perWindow = (this.#limit ?? DEFAULT_RATE_LIMIT.requests) * STREAM_SHARE;
    const windowMs = this.#windowMs ?? DEFAULT_RATE_LIMIT.windowMs;
    return (windowMs * Math.max(1, this.#streams)) / Math.max(1, perWindow);
  }

  /**
   * How long a stream edit waits now beyond its interval: once the budget left is down to
   * `REPLY_RESERVE` of the limit, until the limit resets, so the requests left go to replies
   * (which wait only when none is left). 0 while the budget is unknown or ample.
   */
  editDelay(): number {
    const plain = this.delay();
    if (plain > 0) return plain;
    const limit = this.#limit ?? DEFAULT_RATE_LIMIT.requests;
    if (this.#remaining === undefined || this.#resetAt === undefined) return 0;
    if (this.#remaining > limit * REPLY_RESERVE) return 0;
    return Math.min(this.#maxWaitMs, Math.max(0, this.#resetAt - this.#now()));
  }

  async #waitThenSpend(endpoint: string, ms: number, signal?: AbortSignal): Promise<void> {
    await sleep(ms, signal);
    this.#onWait?.(endpoint, ms);
    this.#remaining = undefined;
    this.#resetAt = undefined;
  }

  /** Spends from the shared budget, waiting (and asking again) while it is spent. */
  async #spendShared(endpoint: string, signal?: AbortSignal): Promise<void> {
    let waited = 0;
    for (;;) {
      const ms = await this.#budget!.spend(this.#now());
      if (ms <= 0) break;
      const wait = Math.min(ms, this.#maxWaitMs - waited, SHARED_RECHECK_MS);
      if (wait <= 0) break;
      await sleep(wait, signal);
      waited += wait;
    }
    if (waited > 0) this.#onWait?.(endpoint, waited);
  }
}

/**
 * When the limit lifts, in epoch ms, from `X-RateLimit-Reset`. The server writes whole seconds,
 * truncated (`int(now + secs_to_freedom)`): the limit may lift up to a second after the number,
 * so a whole number counts as the end of its second. A fractional one is taken as it is.
 */
export function resetTime(reset: number): number {
  return Number.isInteger(reset) ? (reset + 1) * 1000 : reset * 1000;
}

/** A shared budget can be refilled by another process's response: a waiter looks again this often. */
const SHARED_RECHECK_MS = 100;
