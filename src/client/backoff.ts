// Waiting: capped exponential backoff with full jitter, and sleeps an AbortSignal cancels.

export interface BackoffOptions {
  /** First delay, in milliseconds. */
  baseMs?: number;
  /** Largest delay, in milliseconds. */
  capMs?: number;
  /** Source of randomness in [0, 1); injectable for tests. */
  random?: () => number;
}

/** Delay before retry number `attempt` (0-based): uniform in [cap/2, cap] of base·2^attempt, capped. */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const { baseMs = 500, capMs = 30_000, random = Math.random } = options;
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
