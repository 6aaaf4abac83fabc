// Per-user rate limiting like the real server's: a sliding window, RATE_LIMIT_HIT and X-RateLimit-* headers.
import { SandboxError } from "./errors.js";

export interface RateLimitOptions {
  /** Requests allowed per user within the window. Real servers: 200. */
  requests: number;
  /** Window length in seconds. Real servers: 60. */
  windowSeconds: number;
}

export interface RateLimitVerdict {
  headers: Record<string, string>;
}

export class RateLimiter {
  readonly options: RateLimitOptions;
  readonly #now: () => number;
  readonly #log = new Map<number, number[]>();

  constructor(options: RateLimitOptions, now: () => number) {
    this.options = options;
    this.#now = now;
  }

  /**
   * Counts a request of `userId`; returns the headers to send, or throws `RATE_LIMIT_HIT`
   * (HTTP 429, `retry-after` in the body and the `Retry-After` header) when over the limit.
   */
  check(userId: number): RateLimitVerdict {
    const now = this.#now();
    const windowMs = this.options.windowSeconds * 1000;
    const times = (this.#log.get(userId) ?? []).filter((t) => t > now - windowMs);
    this.#log.set(userId, times);
    const limit = this.options.requests;
    if (times.length >= limit) {
      const freeAt = times[0]! + windowMs;
      const retryAfter = Math.max(0.001, (freeAt - now) / 1000);
      const headers = {
        "X-RateLimit-Limit": String(limit),
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": String(Math.ceil(freeAt / 1000)),
        "Retry-After": String(Math.ceil(retryAfter)),
      };
      throw new SandboxError("RATE_LIMIT_HIT", "API usage exceeded rate limit", {
        status: 429,
        extra: { "retry-after": retryAfter },
        headers,
      });
    }
    times.push(now);
    const resetMs = times[0]! + windowMs;
    return {
      headers: {
        "X-RateLimit-Limit": String(limit),
        "X-RateLimit-Remaining": String(limit - times.length),
        "X-RateLimit-Reset": String(Math.ceil(resetMs / 1000)),
      },
    };
  }

  /** Forgets every user's history (tests that change limits mid-run). */
  reset(): void {
    this.#log.clear();
  }
}
