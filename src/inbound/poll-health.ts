// What /healthz says of the event loop: degraded while polls fail (and for how long), unhealthy once delivery is stuck.
import { DEFAULT_REREGISTER_AFTER_MS } from "./event-queue.js";

/** The loop's state, as `EventQueue.pollState` gives it. */
export interface PollState {
  failingSince: number | undefined;
  failures: number;
  lastError: string | undefined;
  handingOverSince: number | undefined;
}

/** What `/healthz` shows of polling (`polling` in its body). */
export interface PollingReport {
  /** Seconds since the first of the polls failing now. */
  failingForSeconds?: number;
  failures?: number;
  lastError?: string;
  /** Seconds the handlers have held one poll's events. */
  handlingForSeconds?: number;
}

export interface PollHealth {
  /** Polls are failing: the bot may be missing messages for now. */
  degraded: boolean;
  /** Delivery is stuck: polls have failed as long as a queue outlives, or handlers hold one poll's events that long. */
  stuck: boolean;
  report: PollingReport | undefined;
}

export interface PollHealthLimits {
  /** Failing this long is stuck (default: as long as before the queue is presumed lost, 5 minutes). */
  failingStuckAfterMs?: number;
  /** Handing one poll's events over this long is stuck (default 5 minutes). */
  handlingStuckAfterMs?: number;
}

/**
 * The health verdict of a poll state at `now`.
 *
 * @example
 * pollHealth({ failingSince: 0, failures: 3, lastError: "HTTP 502", handingOverSince: undefined }, 20_000);
 * // { degraded: true, stuck: false, report: { failingForSeconds: 20, failures: 3, lastError: "HTTP 502" } }
 */
export function pollHealth(
  state: PollState,
  now: number,
  limits: PollHealthLimits = {},
): PollHealth {
  const failingStuck = limits.failingStuckAfterMs ?? DEFAULT_REREGISTER_AFTER_MS;
  const handlingStuck = limits.handlingStuckAfterMs ?? 5 * 60_000;
  const report: PollingReport = {};
  let degraded = false;
  let stuck = false;
  if (state.failingSince !== undefined) {
    const ms = Math.max(0, now - state.failingSince);
    degraded = true;
    stuck ||= ms >= failingStuck;
    report.failingForSeconds = Math.round(ms / 1000);
    report.failures = state.failures;
    if (state.lastError !== undefined) report.lastError = state.lastError;
  }
  if (state.handingOverSince !== undefined) {
    const ms = Math.max(0, now - state.handingOverSince);
    if (ms >= handlingStuck) {
      stuck = true;
      report.handlingForSeconds = Math.round(ms / 1000);
    }
  }
  return { degraded, stuck, report: Object.keys(report).length > 0 ? report : undefined };
}
