// When a failed call is sent again: rate limits always, 5xx and network errors only when safe to repeat.
import { ApiError, NetworkError } from "./errors.js";
import { backoffDelay } from "./backoff.js";

export interface RetryPolicy {
  /** Total attempts per call, the first included. */
  maxAttempts: number;
  baseMs: number;
  capMs: number;
  /** Longest `retry-after` honoured before giving up, in seconds. */
  maxRetryAfterSeconds: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseMs: 250,
  capMs: 10_000,
  maxRetryAfterSeconds: 120,
};

/**
 * Milliseconds to wait before attempt `attempt + 1`, or undefined when the error must be thrown.
 * `repeatable`: the request may be sent twice without harm (GET, or the caller opted in).
 */
export function retryDelay(
  error: unknown,
  attempt: number,
  repeatable: boolean,
  policy: RetryPolicy,
): number | undefined {
  if (attempt + 1 >= policy.maxAttempts) return undefined;
  if (error instanceof ApiError) {
    if (error.code === "RATE_LIMIT_HIT" || error.status === 429) {
      const seconds = error.retryAfter ?? backoffDelay(attempt, policy) / 1000;
      if (seconds > policy.maxRetryAfterSeconds) return undefined;
      return Math.ceil(seconds * 1000) + Math.round(Math.random() * 100);
    }
    if (error.status >= 500 && repeatable) return backoffDelay(attempt, policy);
    return undefined;
  }
  if (error instanceof NetworkError && repeatable) return backoffDelay(attempt, policy);
  return undefined;
}
