// When a failed call is sent again: rate limits always, 5xx and network errors only when safe to repeat.
import { ApiError, CertificateError, NetworkError } from "./errors.js";
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
  // A certificate the client or the server refuses stays refused until the settings change.
  if (error instanceof CertificateError) return undefined;
  if (error instanceof NetworkError && repeatable) return backoffDelay(attempt, policy);
  return undefined;
}

/** A failure the server may get past on a later attempt: transport faults, 5xx and rate limits. */
export function isTransient(error: unknown): boolean {
  return (
    isUncertain(error) ||
    (error instanceof ApiError && (error.status === 429 || error.code === "RATE_LIMIT_HIT"))
  );
}

/** A failure after which a write may or may not have been carried out (a lost connection, a 5xx). */
export function isUncertain(error: unknown): boolean {
  if (error instanceof CertificateError) return false;
  return error instanceof NetworkError || (error instanceof ApiError && error.status >= 500);
}

/** Retrying until a deadline instead of a number of attempts: an outage is waited out. */
export interface DeadlinePolicy {
  /** How long after the first attempt retries stop and the error is reported. */
  deadlineMs: number;
  baseMs: number;
  capMs: number;
  /** Attempts at most, the first included (default: no limit but the deadline). */
  maxAttempts?: number;
}

/** Five minutes: a server restart or a network outage of that length is waited out. */
export const DEFAULT_DEADLINE: DeadlinePolicy = {
  deadlineMs: 5 * 60_000,
  baseMs: 250,
  capMs: 10_000,
};

/**
 * Milliseconds to wait before attempt `attempt + 1` of a call that started at `startedAt`, or
 * undefined when `error` must be reported: a refusal (4xx other than a rate limit), or the wait
 * would end past the deadline. Waits are capped exponential backoff with jitter, or `retry-after`.
 *
 * @example
 * const wait = deadlineDelay(error, attempt, startedAt, Date.now(), DEFAULT_DEADLINE);
 * if (wait === undefined) throw error;
 */
export function deadlineDelay(
  error: unknown,
  attempt: number,
  startedAt: number,
  now: number,
  policy: DeadlinePolicy,
): number | undefined {
  if (!isTransient(error)) return undefined;
  if (policy.maxAttempts !== undefined && attempt + 1 >= policy.maxAttempts) return undefined;
  const wait =
    error instanceof ApiError && error.retryAfter !== undefined
      ? Math.ceil(error.retryAfter * 1000)
      : backoffDelay(attempt, policy);
  return now + wait - startedAt > policy.deadlineMs ? undefined : wait;
}
