// The watch over handlers: time limits and quarantine assembled for one bot, with their log lines, metrics and health.
import type { Logger } from "../log/logger.js";
import type { MetricsRegistry } from "../metrics/registry.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import { DEFAULT_MAX_FAILURES, Quarantine } from "../state/quarantine.js";
import { formatMs, TimeLimits, type LimitedRun, type TimeLimit } from "./time-limit.js";

/** `handlers` of `createBot` and bot.config.yaml. */
export interface HandlerOptions {
  /** Every handler's time limit in ms, or false for none. Default 10 minutes. */
  timeoutMs?: TimeLimit;
  /** Time limits by plugin name (a handler's own `timeoutMs` still wins). */
  plugins?: Readonly<Record<string, TimeLimit>>;
  /** Failures (throws, overruns, runs cut by a stop or kill) before a message is quarantined; false: never. Default 3. */
  maxFailures?: number | false;
}

/** What a bot keeps of its handlers' health. */
export interface HandlerWatch {
  readonly limits: TimeLimits;
  readonly quarantine: Quarantine;
  /** Why handlers make the bot degraded now (`/healthz`), or undefined when they do not. */
  stuck(): string | undefined;
  /** At stop: counts the handlers still running (they are handed over again on the next start). */
  countCutShort(): Promise<void>;
}

const describeRun = (r: LimitedRun): string =>
  `plugin ${r.plugin}, ${r.handler}, message ${r.messageId}`;

/**
 * Builds the time limits and the quarantine, and registers their metrics:
 * `topicbot_handler_timeouts_total{plugin}`, `topicbot_handlers_overrunning`,
 * `topicbot_quarantined_messages`.
 *
 * @example
 * const watch = createHandlerWatch({ timeoutMs: 30_000 }, { store, log, registry });
 * router.middleware(report, undefined, watch.limits);
 */
export function createHandlerWatch(
  options: HandlerOptions,
  deps: { store: KeyValueStore; log: Logger; registry: MetricsRegistry; now?: () => number },
): HandlerWatch {
  const { log, registry } = deps;
  const quarantine = new Quarantine({
    store: deps.store,
    maxFailures: options.maxFailures,
    now: deps.now,
    onQuarantined: (letter) =>
      log.warn(
        { ...letter },
        `message ${letter.messageId} quarantined after ${letter.failures} failures (plugin ${letter.plugin}, ${letter.handler}: ${letter.reason}); it is not run again (bot check lists the dead letters)`,
      ),
  });
  const timeouts = registry.counter<"plugin">({
    name: "topicbot_handler_timeouts_total",
    help: "Handlers aborted for running past their time limit, by plugin.",
    labels: ["plugin"],
  });
  const countFailure = (run: LimitedRun, reason: string, urgent: boolean): Promise<void> =>
    quarantine
      .failed(run.messageId, run.plugin, run.handler, reason, urgent)
      .catch((error: unknown) => log.warn({ err: error }, "could not count a handler failure"));
  const limits = new TimeLimits({
    defaultMs: options.timeoutMs,
    plugins: options.plugins,
    hooks: {
      // Counted before the limit runs out: a hung handler is often ended by a kill, not the limit.
      halfway: (run) => {
        const n = quarantine.failuresOf(run.messageId) + 1;
        const max = String(options.maxFailures ?? DEFAULT_MAX_FAILURES);
        // Logged once written: a kill after this line does not lose the count.
        void countFailure(
          run,
          `ran past half its time limit of ${formatMs(run.limitMs)}`,
          true,
        ).then(() =>
          log.warn(
            {
              plugin: run.plugin,
              handler: run.handler,
              messageId: run.messageId,
              limitMs: run.limitMs,
            },
            `plugin "${run.plugin}": ${run.handler} has run for half its time limit of ${formatMs(run.limitMs)} on message ${run.messageId}; counted as a failure (${n} of ${max} before quarantine)`,
          ),
        );
      },
      overran: (run) => timeouts.inc({ plugin: run.plugin }),
      succeeded: (id) => quarantine.succeeded(id),
    },
  });
  registry.gauge({
    name: "topicbot_handlers_overrunning",
    help: "Handlers aborted for their time limit that have not returned yet (they ignore ctx.signal).",
    collect: () => limits.overrunning().length,
  });
  registry.gauge({
    name: "topicbot_quarantined_messages",
    help: "Messages on the dead-letter list: their handler failed too often, they are not run again.",
    collect: () => quarantine.size,
  });
  return {
    limits,
    quarantine,
    stuck() {
      const slow = limits.slow();
      const over = limits.overrunning();
      if (slow.length === 0 && over.length === 0) return undefined;
      const parts: string[] = [];
      if (slow.length > 0)
        parts.push(
          `${slow.length} concurrency slot(s) held past half their time limit (${slow.slice(0, 3).map(describeRun).join("; ")})`,
        );
      if (over.length > 0)
        parts.push(
          `${over.length} handler(s) aborted for their time limit still running, ignoring ctx.signal (${over.slice(0, 3).map(describeRun).join("; ")})`,
        );
      return parts.join("; ");
    },
    async countCutShort() {
      for (const run of limits.running())
        if (!run.counted && !run.overran) await countFailure(run, "still running at a stop", false);
    },
  };
}
