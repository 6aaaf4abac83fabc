// The bot's standard metrics and the hooks the runtime, client, scheduler and receiver call to feed them.
import type { CallEvent } from "../client/client.js";
import { MetricsRegistry, type Counter, type Histogram } from "./registry.js";

/** Reply latency buckets, in seconds: 10 ms to 30 s. */
export const REPLY_LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The hooks, one call per thing that happened. All are cheap and never throw on valid input. */
export interface BotMetrics {
  readonly registry: MetricsRegistry;
  /** An event came off the event queue (`type` is the event's type, e.g. `message`). */
  eventReceived(type: string): void;
  /** Middleware and plugins finished with an event without throwing. */
  eventHandled(type: string): void;
  /** A plugin or middleware threw while handling an event. */
  eventFailed(type: string): void;
  /** A reply was sent `seconds` after the message it answers arrived. */
  replySent(seconds: number): void;
  /** An API call finished: `endpoint` as `METHOD /path`, `status` the HTTP status or `network`. */
  apiCall(endpoint: string, status: number | "network"): void;
  /** The client waited `seconds` for a rate limit before calling `endpoint`. */
  rateLimitWait(endpoint: string, seconds: number): void;
  /** The webhook receiver answered a request on `route` (`unmatched` for unknown paths). */
  webhookRequest(route: string, status: number): void;
  /** A cron job's fire time ended with this outcome. */
  cronRun(job: string, outcome: "ok" | "failed" | "skipped"): void;
  /** A write to storage failed (`store`: `delivery` for the delivery journal, `plugins` for the key-value store). */
  storageWriteFailed(store: string): void;
}

/**
 * Creates the standard metrics in a registry (a new one by default).
 *
 * @example
 * const metrics = createBotMetrics();
 * metrics.apiCall("POST /messages", 200);
 * response.end(await metrics.registry.expose());
 */
export function createBotMetrics(
  registry = new MetricsRegistry(),
  options: { startedAt?: number } = {},
): BotMetrics {
  const startedAt = options.startedAt ?? Date.now();
  registry.gauge({
    name: "process_start_time_seconds",
    help: "Start time of the process since the UNIX epoch, in seconds.",
    collect: () => startedAt / 1000,
  });
  const received: Counter<"type"> = registry.counter({
    name: "topicbot_events_received_total",
    help: "Events received from the server's event queue, by event type.",
    labels: ["type"],
  });
  const handled: Counter<"type"> = registry.counter({
    name: "topicbot_events_handled_total",
    help: "Events handled by middleware and plugins without error, by event type.",
    labels: ["type"],
  });
  const failed: Counter<"type"> = registry.counter({
    name: "topicbot_events_failed_total",
    help: "Events whose handling threw an error, by event type.",
    labels: ["type"],
  });
  const latency: Histogram = registry.histogram({
    name: "topicbot_reply_latency_seconds",
    help: "Time from receiving a message to sending the reply, in seconds.",
    buckets: REPLY_LATENCY_BUCKETS,
  });
  const apiCalls: Counter<"endpoint" | "status"> = registry.counter({
    name: "topicbot_api_calls_total",
    help: "REST API calls by endpoint and HTTP status (network for failures without a response).",
    labels: ["endpoint", "status"],
  });
  const waits: Counter<"endpoint"> = registry.counter({
    name: "topicbot_rate_limit_waits_total",
    help: "Times the client waited for a rate limit before calling an endpoint.",
    labels: ["endpoint"],
  });
  const waitSeconds: Counter<"endpoint"> = registry.counter({
    name: "topicbot_rate_limit_wait_seconds_total",
    help: "Seconds spent waiting for rate limits, by endpoint.",
    labels: ["endpoint"],
  });
  const webhooks: Counter<"route" | "status"> = registry.counter({
    name: "topicbot_webhook_requests_total",
    help: "Requests answered by the webhook receiver, by route and HTTP status.",
    labels: ["route", "status"],
  });
  const cron: Counter<"job" | "outcome"> = registry.counter({
    name: "topicbot_cron_runs_total",
    help: "Cron job fire times by job and outcome (ok, failed, skipped because still running).",
    labels: ["job", "outcome"],
  });

  const storageFailures: Counter<"store"> = registry.counter({
    name: "topicbot_storage_write_failures_total",
    help: "Storage writes that failed (full or read-only disk), by store.",
    labels: ["store"],
  });

  return {
    registry,
    eventReceived: byEventType(received),
    eventHandled: byEventType(handled),
    eventFailed: byEventType(failed),
    replySent: replyLatency(latency),
    apiCall: byEndpointAndStatus(apiCalls),
    rateLimitWait(endpoint, seconds) {
      waits.inc({ endpoint });
      waitSeconds.inc({ endpoint }, Math.max(0, seconds));
    },
    webhookRequest: (route, status) => webhooks.inc({ route, status }),
    cronRun: (job, outcome) => cron.inc({ job, outcome }),
    storageWriteFailed: (store) => storageFailures.inc({ store }),
  };
}

/**
 * Records reply latencies into `latency`, its series looked up once: this runs for every reply.
 * Negative durations (a clock step) count as zero.
 */
function replyLatency(latency: Histogram): (seconds: number) => void {
  const observe = latency.observer();
  return (seconds) => observe(Math.max(0, seconds));
}

/**
 * Counts into `counter` by event type, keeping each type's series at hand: this runs two or
 * three times for every event, and event types are few.
 */
function byEventType(counter: Counter<"type">): (type: string) => void {
  const series = new Map<string, () => void>();
  return (type) => {
    let inc = series.get(type);
    if (inc === undefined) {
      inc = counter.incrementer({ type });
      series.set(type, inc);
    }
    inc();
  };
}

/**
 * Counts into `counter` by endpoint and status, keeping each pair's series at hand: this runs for
 * every API call (each reply and each poll), and the pairs a bot sees are few.
 */
function byEndpointAndStatus(
  counter: Counter<"endpoint" | "status">,
): (endpoint: string, status: number | "network") => void {
  const series = new Map<string, Map<number | "network", () => void>>();
  return (endpoint, status) => {
    let statuses = series.get(endpoint);
    if (statuses === undefined) {
      statuses = new Map();
      series.set(endpoint, statuses);
    }
    let inc = statuses.get(status);
    if (inc === undefined) {
      inc = counter.incrementer({ endpoint, status });
      statuses.set(status, inc);
    }
    inc();
  };
}

/**
 * The client's `onCall` observer that feeds `apiCall` and `rateLimitWait`.
 *
 * @example
 * const metrics = createBotMetrics();
 * const client = createClient({ ...server, onCall: observeCalls(metrics) });
 */
export function observeCalls(metrics: BotMetrics): (event: CallEvent) => void {
  return (event) => {
    if (event.type === "response") metrics.apiCall(event.endpoint, event.status);
    else metrics.rateLimitWait(event.endpoint, event.ms / 1000);
  };
}
