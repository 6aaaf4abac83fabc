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

/**
 * Which budget a request spends. As on a real server, the event long poll (`/events`, served by
 * its Tornado process) has buckets of its own, separate from every other API request's.
 */
export type RateLimitBucket = "api" | "events";

export class RequestRateLimiter {
  readonly options: RateLimitOptions;
  readonly #now: () => number;
  readonly #log = new Map<string, number[]>();

  constructor(options: RateLimitOptions, now: () => number) {
    this.options = options;
    this.#now = now;
  }

  /**
   * Counts a request of `userId` in `bucket`; returns the headers to send, or throws `RATE_LIMIT_HIT`
   * (HTTP 429, `retry-after` in the body and the `Retry-After` header) when over the limit.
   */
  check(userId: number, bucket: RateLimitBucket = "api"): RateLimitVerdict {
    const now = this.#now();
    const windowMs = this.options.windowSeconds * 1000;
    const key = `${bucket}:${userId}`;
    const times = (this.#log.get(key) ?? []).filter((t) => t > now - windowMs);
    this.#log.set(key, times);
    const limit = this.options.requests;
    if (times.length >= limit) {
      const freeAt = times[0]! + windowMs;
      const retryAfter = Math.max(0.001, (freeAt - now) / 1000);
      const headers = {
        "X-RateLimit-Limit": String(limit),
        "X-RateLimit-Remaining": "0",
        "X-RateLimit-Reset": String(Math.floor(freeAt / 1000)),
        "Retry-After": String(Math.ceil(retryAfter)),
      };
      throw new SandboxError("RATE_LIMIT_HIT", "API usage exceeded rate limit", {
        status: 429,
        extra: { "retry-after": retryAfter },
        headers,
      });
    }
    times.push(now);
    // As the server: the time at which no limit applies any more (the newest call leaves the
    // window), in whole seconds, truncated (`int(now + secs_to_freedom)`). A refusal instead
    // says when the next request may go (the oldest call leaves).
    const resetMs = now + windowMs;
    return {
      headers: {
        "X-RateLimit-Limit": String(limit),
        "X-RateLimit-Remaining": String(limit - times.length),
        "X-RateLimit-Reset": String(Math.floor(resetMs / 1000)),
      },
    };
  }

  /** Forgets every user's history (tests that change limits mid-run). */
  reset(): void {
    this.#log.clear();
  }
}
