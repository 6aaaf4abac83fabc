// The bot's links to time and the outside world: cron jobs, the webhook receiver, outgoing-webhook mode, health and metrics.
import type { AnyEvent } from "../api/events.js";
import type { ApiClient, ClientOptions } from "../client/client.js";
import type { EventSink } from "../inbound/event-queue.js";
import type { Logger } from "../log/logger.js";
import { createBotMetrics, observeCalls, type BotMetrics } from "../metrics/bot.js";
import type { SchedulerClock } from "../scheduler/clock.js";
import { scheduleJob, type ScheduleEntry } from "../scheduler/config.js";
import { createHash } from "node:crypto";
import { Scheduler, type ScheduledJob } from "../scheduler/scheduler.js";
import {
  configRoute,
  type ChannelPost,
  type MessageLimits,
  type WebhookEntry,
} from "../webhooks/config.js";
import { outgoingWebhookRoute, type OutgoingMessage } from "../webhooks/outgoing.js";
import {
  createReceiver,
  WebhookError,
  type WebhookHandler,
  type WebhookReceiver,
} from "../webhooks/receiver.js";
import {
  MessageContextObject,
  type ContextServices,
  type MessageContext,
} from "../context/context.js";
import { takeAnswer } from "../context/answers.js";
import { address } from "../dispatch/gate.js";
import type { MessageOutcomes } from "../dispatch/handling.js";
import type { BotIdentity } from "../model/account.js";
import type { PluginServices } from "./plugin-api.js";
import type { PluginSetOutlets } from "./plugin-set.js";
import type { Dialogs } from "../context/session.js";
import { pollHealth, type PollState } from "../inbound/poll-health.js";
import { notify } from "../model/observer.js";

/** Where the webhook receiver listens (the `http:` section). */
export interface HttpOptions {
  /** Default 127.0.0.1: loopback only. */
  host?: string;
  /** Default 8080; 0 picks a free port (see `bot.webhookUrl`). */
  port?: number;
  /** Default body cap of every route, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Serve `/metrics`. Default true. */
  metrics?: boolean;
}

/** The options of `createBot` about time and the outside world; config sections of the same names. */
export interface ServiceOptions {
  /** Time source of cron jobs; tests pass a `ManualSchedulerClock`. Default: real time. */
  schedulerClock?: SchedulerClock;
  /** Cron jobs that post a message (`schedules:` in bot.config.yaml). */
  schedules?: ScheduleEntry[];
  /** Routes that turn a JSON payload into a message (`webhooks:`). */
  webhooks?: WebhookEntry[];
  /** Receiver settings (`http:`); given alone, the receiver still runs for `/healthz` and `/metrics`. */
  http?: HttpOptions;
  /**
   * Outgoing-webhook mode (`outgoingWebhook:`): the server POSTs mentions and direct messages to
   * `path` and the reply goes back in the answer. Those messages are then left out of the event
   * queue's path, so nothing is answered twice.
   */
  outgoingWebhook?: { path?: string; token: string };
  /** False: routes are declared but the receiver does not listen (`bot check`). Default true. */
  listen?: boolean;
  /**
   * Metrics to feed; default a new set. When passing a ready `client`, create it with
   * `onCall: observeCalls(metrics)` so API calls are counted too.
   */
  metrics?: BotMetrics;
  /** Cluster mode (src/cluster/node.ts): duties done once across nodes, and the node's health. */
  cluster?: ClusterDuties;
}

/** What cluster mode lends the services: once-only duties and what `/healthz` shows of the node. */
export interface ClusterDuties {
  /** Claims a duty (`cron:<job>:<fire time>`, `webhook:<path>:<delivery>`) for `ttlMs`; false: another node has it. */
  claim(duty: string, ttlMs: number): Promise<boolean>;
  /** The node's role, partitions, lag and lease age, for `/healthz`. */
  health(): unknown;
  /** What of the cluster works badly now (`redis` while it is unreachable), for `/healthz`. */
  degraded?(): string[];
}

/** Headers senders put a delivery's own ID in; without one, a delivery is known by its body. */
const DELIVERY_ID_HEADERS = [
  "idempotency-key",
  "x-github-delivery",
  "x-gitlab-event-uuid",
  "x-request-id",
  "x-delivery-id",
];

/** How long a webhook delivery is remembered: a day by its ID, five minutes by its body alone. */
const DELIVERY_MEMORY_MS = { id: 24 * 3_600_000, body: 5 * 60_000 };

/** What the bot shows of these services. */
export interface BotServicesView {
  /** The bot's metrics (served on the receiver's `/metrics`). */
  readonly metrics: BotMetrics;
  /** The bot's cron jobs: `scheduler.jobs()`, `scheduler.trigger(name)`. */
  readonly scheduler: Scheduler;
  /** The webhook receiver's base URL once listening, e.g. `http://127.0.0.1:8080`. */
  readonly webhookUrl: string | undefined;
  /** The paths of every webhook route, config and plugins alike. */
  webhookRoutes(): string[];
  /**
   * Runs a message a server POSTed to an outgoing webhook through the middleware and plugins;
   * resolves with the reply's Markdown (replies joined by blank lines), or undefined for none.
   * The receiver's outgoing route calls it; mount it in your own HTTP server the same way.
   */
  handleOutgoing(message: OutgoingMessage): Promise<string | undefined>;
}

/** What the services need of the running bot, given once plugins are set up. */
export interface RunningBot {
  me: BotIdentity;
  context: ContextServices;
  pipeline: (ctx: MessageContext) => Promise<void>;
  dialogs: Dialogs<MessageContext>;
  prefix: string;
}

export interface BotServices extends BotServicesView, MessageOutcomes {
  readonly plugins: PluginServices;
  /** The client options the bot creates its own client with: the metrics observer added. */
  clientOptions(server: ClientOptions): ClientOptions;
  /** Wraps the event sink: counts events, notes when the last one arrived, shows each to `observed`. */
  observe(sink: EventSink, observed?: (event: AnyEvent) => void): EventSink;
  /** A context sent its first reply: observes the reply latency since its message arrived (`performance.now()`). */
  firstReply(ctx: MessageContext, arrivedAt: number): void;
  /** Where the plugin sets' cron jobs and webhook routes go (src/bot/plugin-set.ts). */
  readonly outlets: PluginSetOutlets;
  /** After plugin setup: schedules config jobs and starts the receiver if anything needs it. */
  start(running: RunningBot): Promise<void>;
  /**
   * A reload: the config's cron jobs replaced by `entries`, and the receiver started if a
   * reloaded plugin declared the first route.
   */
  reload(entries: ScheduleEntry[] | undefined): Promise<void>;
  /** Stops the receiver and the cron jobs (waiting for runs in progress). Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The cron, webhook, health and metrics services of one bot.
 *
 * @example
 * const services = createBotServices(options, { log, api: () => api, connected: () => true });
 */
export function createBotServices(
  options: ServiceOptions,
  deps: {
    log: Logger;
    /** The bot's client (read when a job or route posts). */
    api: () => ApiClient;
    /** Whether the event queue is registered and polling. */
    connected: () => boolean;
    /** What works badly while the bot runs (`storage` while writes fail), for `/healthz`. */
    degraded?: () => string[];
    /** Why, for the parts of `degraded` that say (`/healthz` shows it as `reasons`). */
    degradedReasons?: () => Record<string, string>;
    /** The event loop's poll state (`EventQueue.pollState`), for `/healthz`. */
    polling?: () => PollState | undefined;
    now?: () => number;
    /** The server's topic and message length limits (config webhook routes cut to them). */
    limits?: () => MessageLimits;
  },
): BotServices {
  const { log } = deps;
  const now = deps.now ?? Date.now;
  const metrics = options.metrics ?? createBotMetrics();
  const cluster = options.cluster;
  const scheduler = new Scheduler({
    clock: options.schedulerClock,
    logger: log.child({ component: "cron" }),
    onJob: (event) => metrics.cronRun(event.name, event.outcome),
    claim: cluster && ((job, at) => cluster.claim(`cron:${job}:${at}`, DELIVERY_MEMORY_MS.id)),
  });
  const send = (post: ChannelPost) =>
    deps
      .api()
      .messages.send({ type: "channel", to: post.to, topic: post.topic, content: post.content });
  const failures = new WeakSet<MessageContext>();
  const fromWebhook = new WeakSet<MessageContext>();
  const unauthenticated: string[] = [];
  let receiver: WebhookReceiver | undefined;
  let running: RunningBot | undefined;
  let lastEventAt: number | undefined;
  let stopping: Promise<void> | undefined;
  /** The cron jobs of the config's `schedules:`, replaced whole on a reload. */
  let configJobs: ScheduledJob[] = [];
  const scheduleConfig = (entries: ScheduleEntry[] | undefined): void => {
    configJobs = (entries ?? []).map((entry, index) => {
      const { expression, job, options: jobOptions } = scheduleJob(entry, send, index);
      return scheduler.schedule(expression, job, jobOptions);
    });
  };

  /** A plugin's route on the receiver (started with the bot, or by the reload that adds it). */
  const mountRoute: PluginSetOutlets["mountRoute"] = (plugin, path, routeOptions, handler) => {
    try {
      ensureReceiver().route(path, routeOptions, once(handler));
    } catch (error) {
      throw new Error(`plugin "${plugin}": ${(error as Error).message}`, { cause: error });
    }
    if (routeOptions.auth.type === "none") unauthenticated.push(`${path} (plugin "${plugin}")`);
  };

  /** Starts the receiver when it has something to serve and is not listening yet. */
  const listen = async (): Promise<void> => {
    if (!receiver || receiver.listening || options.listen === false) return;
    for (const route of unauthenticated.splice(0))
      log.warn(`webhook route ${route} has no authentication; anyone who can reach it can call it`);
    const host = options.http?.host ?? "127.0.0.1";
    const port = options.http?.port ?? 8080;
    try {
      await receiver.listen();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new Error(
        `the webhook receiver cannot listen on ${host}:${port}: ${code} (set http.port)`,
        { cause: error },
      );
    }
  };

  const ensureReceiver = (): WebhookReceiver =>
    (receiver ??= createReceiver({
      host: options.http?.host ?? "127.0.0.1",
      port: options.http?.port ?? 8080,
      maxBodyBytes: options.http?.maxBodyBytes,
      logger: log,
      metrics: options.http?.metrics === false ? undefined : metrics,
      health: () => {
        const state = deps.polling?.();
        const polls = state && pollHealth(state, now());
        const connected = deps.connected();
        return {
          queueConnected: connected,
          lastEventAt: lastEventAt ?? null,
          // Unhealthy without a queue, and once delivery is stuck; degraded while polls fail.
          healthy: connected && !polls?.stuck,
          degraded: [
            ...(deps.degraded?.() ?? []),
            ...(polls?.degraded ? ["polling"] : []),
            ...(cluster?.degraded?.() ?? []),
          ],
          reasons: deps.degradedReasons?.(),
          cluster: cluster?.health(),
          polling: polls?.report,
        };
      },
    }));

  /** In cluster mode, a delivery posted to several nodes (a load balancer's retry) is handled once. */
  const once = (handler: WebhookHandler): WebhookHandler =>
    !cluster
      ? handler
      : async (request) => {
          const header = DELIVERY_ID_HEADERS.find((h) => typeof request.headers[h] === "string");
          // Loaded here, in cluster mode's webhook path: node:crypto costs ~2 ms at start-up.
          const id = header
            ? `id:${String(request.headers[header])}`
            : `body:${createHash("sha256").update(request.rawBody).digest("hex")}`;
          const ttl = header ? DELIVERY_MEMORY_MS.id : DELIVERY_MEMORY_MS.body;
          if (!(await cluster.claim(`webhook:${request.path}:${id}`, ttl)))
            return { ok: true, duplicate: true };
          return handler(request);
        };

  options.webhooks?.forEach((entry) => {
    const route = configRoute(entry, send, deps.limits);
    ensureReceiver().mount({ ...route, handler: once(route.handler) });
  });

  function leftToWebhook(ctx: MessageContext): boolean {
    return (
      options.outgoingWebhook !== undefined &&
      !fromWebhook.has(ctx) &&
      (ctx.isDirect || ctx.messageFlags.includes("mentioned"))
    );
  }

  async function handleOutgoing(m: OutgoingMessage): Promise<string | undefined> {
    if (!running) throw new WebhookError(503, "the bot is not running");
    const { me, context, pipeline, dialogs, prefix } = running;
    metrics.eventReceived("message");
    lastEventAt = now();
    const replies: string[] = [];
    let answering = true;
    let suspend!: () => void;
    const suspended = new Promise<void>((resolve) => (suspend = resolve));
    // The first reply before the chain ends is timed from now (as on the event path).
    const turn = { suspend: () => suspend(), arrivedAt: performance.now() as number | undefined };
    const ctx = new MessageContextObject({
      message: m.message,
      flags: m.trigger === "mention" ? ["mentioned"] : [],
      addressing: address(m.message.content, {
        isDirect: m.message.type === "private",
        bot: me,
        prefix,
      }),
      // Not through the reply guard: captured replies are not posted, so there is nothing to record.
      services: { ...context, guard: undefined },
      turn,
      // Replies go into the HTTP answer while it is open; later ones (after `ask`) are posted.
      replyVia: (content, post) => {
        if (!answering) return post();
        replies.push(content);
        return Promise.resolve({ id: 0, ids: [] });
      },
    });
    fromWebhook.add(ctx);
    // As in the event path: the answer to an open question goes to the handler that asked.
    if (m.message.sender_id !== me.userId && (await takeAnswer(ctx, dialogs))) {
      answering = false;
      return replies.length > 0 ? replies.join("\n\n") : undefined;
    }
    const run = pipeline(ctx).then(
      () => finished(ctx, false),
      () => finished(ctx, true),
    );
    void run.then(() => (turn.arrivedAt = undefined));
    try {
      await Promise.race([run, suspended]);
    } finally {
      answering = false;
    }
    return replies.length > 0 ? replies.join("\n\n") : undefined;
  }

  function finished(ctx: MessageContext, threw: boolean): void {
    if (threw || failures.has(ctx)) metrics.eventFailed("message");
    else metrics.eventHandled("message");
  }

  function leaveToWebhook(ctx: MessageContext): boolean {
    if (!leftToWebhook(ctx)) return false;
    ctx.log.debug("left to the outgoing webhook");
    metrics.eventHandled("message");
    return true;
  }

  // `webhookUrl` is an accessor added once the object is built, not a getter in the literal: V8
  // makes an object literal with a getter in dictionary mode, and the handler reads `finished`
  // and `leaveToWebhook` from it for every message.
  const services: Omit<BotServices, "webhookUrl"> = {
    metrics,
    scheduler,
    leaveToWebhook,
    finished,
    webhookRoutes: () => receiver?.routes() ?? [],
    handleOutgoing,
    leftToWebhook,
    plugins: {
      cron(expression, job, { defaultName, ...rest }) {
        let name = rest.name ?? defaultName;
        const taken = new Set(scheduler.jobs().map((j) => j.name));
        for (let n = 2; rest.name === undefined && taken.has(name); n++)
          name = `${defaultName} #${n}`;
        return scheduler.schedule(expression, job, { ...rest, name });
      },
      webhook(plugin, path, routeOptions, handler) {
        if (running) throw new Error(`plugin "${plugin}": webhook() must be called during setup`);
        mountRoute(plugin, path, routeOptions, handler);
      },
    },
    clientOptions(server) {
      const count = observeCalls(metrics);
      return {
        ...server,
        onCall: (event) => {
          count(event);
          server.onCall?.(event);
        },
      };
    },
    // Not async, and one clock reading per batch: it sees every event. (Each message's arrival,
    // for the reply latency, travels with the message from the intake: see `MessageTurn`.)
    observe: (sink, observed) => (batch: AnyEvent[], signal: AbortSignal) => {
      lastEventAt = now();
      for (const event of batch) metrics.eventReceived(event.type);
      if (observed) for (const event of batch) notify(observed, event);
      return sink(batch, signal);
    },
    failed: (ctx) => failures.add(ctx),
    firstReply(_ctx, arrivedAt) {
      metrics.replySent((performance.now() - arrivedAt) / 1000);
    },

    outlets: {
      schedule: (expression, job, jobOptions) => scheduler.schedule(expression, job, jobOptions),
      jobNames: () => scheduler.jobs().map((j) => j.name),
      mountRoute,
      unmountRoute: (path) => void receiver?.unroute(path),
      routePaths: () => receiver?.routes() ?? [],
    },

    async reload(entries) {
      if (entries !== undefined) {
        for (const job of configJobs) job.cancel();
        scheduleConfig(entries);
      }
      if (running) await listen();
    },

    async start(bot) {
      running = bot;
      scheduleConfig(options.schedules);
      if (options.outgoingWebhook) {
        ensureReceiver().mount(
          outgoingWebhookRoute({
            ...options.outgoingWebhook,
            handleMessage: handleOutgoing,
            logger: log,
          }),
        );
      }
      if (options.http) ensureReceiver();
      await listen();
    },

    stop: () =>
      (stopping ??= (async () => {
        await receiver?.close();
        await scheduler.stop();
      })()),
  };
  return Object.defineProperty(services, "webhookUrl", {
    get: () => receiver?.url,
    enumerable: true,
  }) as BotServices;
}

/** Puts the view of `services` (`metrics`, `scheduler`, `webhookUrl`, ...) on `bot`. */
export function showServices(bot: object, services: BotServices): void {
  const view: { [K in keyof BotServicesView]: PropertyDescriptor } = {
    metrics: { value: services.metrics },
    scheduler: { value: services.scheduler },
    webhookUrl: { get: () => services.webhookUrl },
    webhookRoutes: { value: () => services.webhookRoutes() },
    handleOutgoing: { value: (m: OutgoingMessage) => services.handleOutgoing(m) },
  };
  Object.defineProperties(bot, view);
}
