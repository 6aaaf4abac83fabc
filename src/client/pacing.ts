// Pacing: outgoing calls slow down from the X-RateLimit-* headers before the server has to refuse them.
import { sleep } from "./backoff.js";

export interface PacingOptions {
  /** Longest single wait for the limit to reset, in milliseconds. Default 60 s. */
  maxWaitMs?: number;
  /** Called after each wait (metrics: `rateLimitWait`). */
  onWait?: (endpoint: string, ms: number) => void;
  /** The current time in epoch milliseconds; injectable for tests. Default `Date.now`. */
  now?: () => number;
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
  #remaining: number | undefined;
  /** Epoch milliseconds when the server's limit resets. */
  #resetAt: number | undefined;

  constructor(options: PacingOptions = {}) {
    this.#maxWaitMs = options.maxWaitMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    this.#onWait = options.onWait;
  }

  /** Takes the numbers of a response's headers (absent headers leave the budget as it is). */
  observe(headers: { remaining?: number; reset?: number }): void {
    if (headers.remaining !== undefined) this.#remaining = headers.remaining;
    if (headers.reset !== undefined) this.#resetAt = headers.reset * 1000;
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
   * promise and the ticks of awaiting it on every request.
   */
  beforeRequest(endpoint: string, signal?: AbortSignal): Promise<void> | undefined {
    const ms = this.delay();
    if (ms > 0) return this.#waitThenSpend(endpoint, ms, signal);
    if (this.#remaining !== undefined) this.#remaining--;
    return undefined;
  }

  async #waitThenSpend(endpoint: string, ms: number, signal?: AbortSignal): Promise<void> {
    await sleep(ms, signal);
    this.#onWait?.(endpoint, ms);
    this.#remaining = undefined;
    this.#resetAt = undefined;
  }
}
