// createBot: assembles one bot (client, event source, intake, dispatcher, router, delivery, services, plugins) and hands back its API.
// How a message goes through it: dispatch/handling.ts; how it starts and stops: lifecycle.ts.
import { timeZoneOption } from "../time/zone-option.js";
import { EventEmitter } from "eventemitter3";
import { createClient, type ApiClient, type ClientOptions } from "../client/client.js";
import type { BackoffOptions } from "../client/backoff.js";
import type { DeadlinePolicy } from "../client/retry.js";
import { DEFAULT_RATE_LIMIT } from "../commands/rate-limit.js";
import type { AnyEvent, RegisterParams, Registration } from "../api/events.js";
import type { Message } from "../api/messages.js";
import type { OwnUser } from "../api/users.js";
import { EventQueue, type EventSource } from "../inbound/event-queue.js";
import { silentLogger, type Logger } from "../log/logger.js";
import type { StorageHealth } from "../state/health.js";
import { createMemoryStore, type KeyValueStore } from "../state/key-value/store.js";
import { DEFAULT_MAX_MESSAGE_LENGTH, type ServerFacts } from "../context/actions.js";
import { catchUpNarrows, type CatchUpWindow } from "../inbound/catch-up.js";
import type { CommandInfo } from "../commands/command.js";
import type { RateLimit } from "../commands/guards.js";
import { createCommandRuntime } from "../dispatch/command-runtime.js";
import type { Middleware } from "../dispatch/compose.js";
import type { MessageContext } from "../context/context.js";
import { createDelivery } from "./delivery.js";
import { deliveryStoreOver } from "../state/delivery/memory.js";
import { RUNTIME_NAMESPACE } from "../state/delivery/open.js";
import type { DeliveryStore } from "../state/delivery/store.js";
import { Directory, type RealmUserEvent } from "../context/directory.js";
import { trackUserAccess, UserAccessSetting } from "../context/userAccess.js";
import { Dispatcher } from "../dispatch/dispatcher.js";
import { Intake } from "../inbound/intake.js";
import { OverlapRoom } from "../dispatch/overlap-lanes.js";
import type { LoopGuardOptions } from "../outbound/loop-guard.js";
import type { BotAccount } from "../model/account.js";
import type { RespondTo } from "../dispatch/gate.js";
import { handlerErrorReporter } from "../dispatch/handler-errors.js";
import { createHandlerWatch, type HandlerOptions } from "../dispatch/handler-watch.js";
import { MessageHandler } from "../dispatch/handling.js";
import type { PluginInstance, Plugin } from "./plugin.js";
import { createPluginApi, type PluginApi } from "./plugin-api.js";
import { Router } from "../dispatch/router.js";
import { DEFAULT_LIMITS } from "../webhooks/config.js";
import { createBotServices, type BotServicesView, type ServiceOptions } from "./services.js";
import { Dialogs } from "../context/session.js";
import { Follows } from "../context/follows.js";
import { notify, type BotObserver } from "../model/observer.js";
import { BOT_FETCH_EVENT_TYPES } from "../inbound/registration.js";
import { isTimeZone } from "../context/time.js";
import { processTimeZone } from "../time/zoned.js";
import { BotLifecycle } from "./lifecycle.js";

export { describeFatal } from "./lifecycle.js";
export type { PluginApi, EventListener } from "./plugin-api.js";

export interface BotOptions extends ServiceOptions {
  /** A ready client; or give `server` and one is created (and closed on stop). */
  client?: ApiClient;
  /**
   * The bot's own profile, when the caller has just read it from GET /users/me with `client`
   * (`bot start` does, to check that the server answers): `start()` takes the bot's identity
   * from it instead of asking the server a second time. Unset, `start()` asks.
   */
  ownProfile?: Pick<OwnUser, "user_id" | "email" | "full_name">;
  server?: ClientOptions;
  plugins?: (Plugin | PluginInstance)[];
  /** Command prefix in channels. Default `!`. */
  prefix?: string;
  /**
   * Which messages reach plugins. `addressed` (default): DMs, leading mentions and the prefix;
   * `mentions`: zulip_bots' rule, one-to-one DMs and messages that start with a mention (group
   * DMs only when they mention the bot; no prefix); `all`: every message.
   */
  respondTo?: RespondTo;
  /**
   * Reply sent when a handler throws; false for none. Commands send it for any error; `hear` and
   * `filter` handlers for errors other than an action the server refused (those are only logged).
   * Each handler may choose with its own `errorReply` option.
   */
  errorReply?: string | false;
  logger?: Logger;
  /** Where events come from; defaults to an EventQueue on the client. */
  events?: EventSource;
  /** Extra registration parameters (`narrow`, `all_public_streams`, ...). */
  register?: RegisterParams;
  /** Stop on SIGINT and SIGTERM. Default true. */
  handleSignals?: boolean;
  /** The key-value store plugins get namespaces of (`createStore(config.storage)`), sessions too; default: memory. */
  storage?: KeyValueStore;
  /** IANA time zone for human times (`tomorrow 9:00`) when the sender's profile has none. Default: the system's. */
  timeZone?: string;
  /** @deprecated Spell it `timeZone`; still read, with a warning. */
  timezone?: string;
  /** Per-user command limit, e.g. `{ commands: 5, perSeconds: 10 }`; false for none. Default `DEFAULT_RATE_LIMIT`, 10 per 10 s, as in bot.config.yaml. */
  rateLimit?: RateLimit | false;
  /** Answer addressed messages that match no command with "did you mean". Default true. */
  unknownCommandReply?: boolean;
  /** The current time in epoch milliseconds (tests pass a fixed clock). Default `Date.now`. */
  now?: () => number;
  /**
   * Conversations handled at the same time; messages of one conversation run in order (unless a
   * handler's `overlap` strategy says otherwise). Default 8.
   */
  concurrency?: number;
  /**
   * Messages waiting for their conversation, plus messages held by handlers' `overlap`
   * strategies, before polling pauses (bounded memory). Default 100.
   */
  maxQueued?: number;
  /** How far catch-up after a lost queue or a restart reaches; false: no catch-up. Default 5000 messages, 24 h. */
  catchUpWindow?: CatchUpWindow | false;
  /** How long `stop()` waits for running handlers before it stops anyway, in ms. Default 10 s. */
  stopTimeoutMs?: number;
  /** The long-poll loop: backoff between failed polls, the hung-poll watchdog, re-registering after long loss. */
  eventLoop?: { backoff?: BackoffOptions; watchdogMs?: number; reregisterAfterMs?: number };
  /**
   * Sending a reply through 5xx answers, lost connections and rate limits: retried with capped
   * backoff until `deadlineMs` (default 5 minutes) after the first attempt; `attempts` optionally
   * caps the tries too. Only a refusal (a 4xx with a `code`) reaches the handler at once.
   */
  sendRetry?: { attempts?: number } & Partial<DeadlinePolicy>;
  /** Per plugin and conversation send limit; over it the plugin is paused there. false: off. */
  loopGuard?: Partial<LoopGuardOptions> | false;
  /** Incoming messages whose replies are remembered (persisted), so none is answered twice. Default 500. */
  replyMemory?: number;
  /**
   * Where the watermark and the reply journal live (`openDeliveryStore(config.storage, storage)`
   * picks it from the storage config; `bot start` does). Default: keys in `storage`.
   */
  delivery?: DeliveryStore;
  /** Counts and reports storage write failures (`/healthz`, metrics); default: the bot's own. */
  storageHealth?: StorageHealth;
  /**
   * Handler time limits (default 10 minutes, per plugin, per handler with `timeoutMs`) and the
   * quarantine of messages whose handler failed `maxFailures` times (default 3), across restarts.
   */
  handlers?: HandlerOptions;
  /** Told of each event received and of each message no handler ran for, with why (`bot dev --web`). */
  observer?: BotObserver;
  /**
   * Cluster mode (src/cluster/node.ts): called at start, before `events` starts, with the bot's
   * handling of one message; the cluster runs it for each message a partition delivers, in place
   * of the intake. Unset, the intake handles what `events` delivers (the single-process path).
   */
  attach?: (handling: MessageHandling) => void;
}

/** The bot's own handling of events, for a source that delivers messages itself (cluster mode). */
export interface MessageHandling {
  /** Runs one message through the pipeline; resolves when its conversation may move on. */
  handle(message: Message, flags: string[]): Promise<void>;
  /** Puts an event on the bot's bus, for `bot.on` listeners. */
  emit(event: AnyEvent): void;
}

export interface Bot extends Omit<PluginApi, "name" | "storage">, BotServicesView {
  /** Resolves the bot's identity, runs plugin setup in order, registers the queue and starts polling. */
  start(): Promise<void>;
  /** Stops polling, deletes the queue and closes connections. Safe to call twice. */
  stop(): Promise<void>;
  /** Settles when the bot has stopped: resolves after `stop()`, rejects on a fatal error. */
  readonly done: Promise<void>;
  /** The bot's own account; available after `start()`. */
  readonly me: BotAccount;
  readonly registration: Registration | undefined;
  /** Every command of every plugin, the built-in `help` included once started. */
  commands(): CommandInfo[];
  /** The bot's storage (each plugin sees its own namespace of it). */
  readonly storage: KeyValueStore;
  /** Users of the server, cached; what user arguments and role checks use. */
  readonly directory: Directory;
  /**
   * Messages being handled, waiting in the dispatcher, or held by an `overlap` strategy until the
   * call that takes them ends (for monitoring and tests).
   */
  readonly pending: number;
}

export { DEFAULT_RATE_LIMIT };

const DEFAULT_ERROR_REPLY = "Sorry, something went wrong handling that. The error has been logged.";

/**
 * Creates a bot.
 *
 * @example
 * const bot = createBot({ server: { site, email, apiKey } });
 * bot.command("ping", { description: "Check the bot is alive" }, (ctx) => ctx.reply("pong"));
 * await bot.start();
 */
export function createBot(options: BotOptions): Bot {
  if (!options.client && !options.server)
    throw new TypeError("createBot needs `client` or `server`");
  const log = options.logger ?? silentLogger();
  const connected = () =>
    lifecycle.state === "running" && (!(events instanceof EventQueue) || !!events.queueId);
  const outside = createBotServices(options, {
    log,
    api: () => api,
    connected,
    degraded: () => [
      ...(delivery.health.degraded ? ["storage"] : []),
      ...(watch.stuck() !== undefined ? ["handlers"] : []),
    ],
    degradedReasons: (): Record<string, string> => {
      const stuck = watch.stuck();
      return stuck === undefined ? {} : { handlers: stuck };
    },
    polling: () => (events instanceof EventQueue ? events.pollState : undefined),
    now: options.now,
    limits: () => ({
      maxTopicLength: registration()?.max_topic_length ?? DEFAULT_LIMITS.maxTopicLength,
      maxMessageLength: server().maxMessageLength,
    }),
  });
  const api = options.client ?? createClient(outside.clientOptions(options.server!));
  const prefix = options.prefix ?? "!";
  const respondTo = options.respondTo ?? "addressed";
  const now = options.now ?? Date.now;
  const configuredZone = timeZoneOption(options, "createBot");
  if (configuredZone !== undefined && !isTimeZone(configuredZone))
    throw new RangeError(`timeZone: unknown time zone "${configuredZone}"`);
  /** The bot's time zone: the configured one, else the process's, resolved on first use. */
  const timeZone = (): string => configuredZone ?? processTimeZone();
  const storage = options.storage ?? createMemoryStore(now);
  const bus = new EventEmitter();
  const middleware: Middleware<MessageContext>[] = [];
  const dialogs = new Dialogs<MessageContext>({
    store: storage.namespace("topicbot:questions"),
    now,
    onError: (error) => log.warn({ err: error }, "could not store an open question"),
  });
  const follows = new Follows(storage.namespace("topicbot:follows"), now);
  const register: RegisterParams = {
    fetch_event_types: [...BOT_FETCH_EVENT_TYPES],
    ...options.register,
  };
  const events =
    options.events ??
    new EventQueue({
      client: api,
      logger: log.child({ component: "events" }),
      register,
      now,
      ...options.eventLoop,
    });
  const dispatcher = new Dispatcher({
    concurrency: options.concurrency ?? 8,
    maxQueued: options.maxQueued ?? 100,
    onError: (error, key) => log.error({ err: error, conversation: key }, "message task failed"),
  });

  const registration = (): Registration | undefined =>
    (events instanceof EventQueue ? events.registration : undefined) ?? lifecycle.firstRegistration;
  const server = (): ServerFacts => ({
    featureLevel: registration()?.zulip_feature_level,
    maxMessageLength: registration()?.max_message_length ?? DEFAULT_MAX_MESSAGE_LENGTH,
  });
  // The realm's guest access setting, re-read from each new registration, then kept by realm events.
  const userAccess = new UserAccessSetting();
  let learnedFrom: Registration | undefined;
  const currentUserAccess = (): UserAccessSetting => {
    const current = registration();
    if (current && current !== learnedFrom) userAccess.learn((learnedFrom = current));
    return userAccess;
  };
  // The queue's `realm_user` events keep the directory's users current while it lasts (a queue of
  // our own registered for them; a cluster worker's events come from the leader, without them).
  const realmUserEvents =
    events instanceof EventQueue &&
    (register.event_types === undefined || register.event_types.includes("realm_user"));
  const directory = new Directory(api, {
    now,
    guestsSeeEveryone: () => currentUserAccess().guestsSeeEveryone(),
    keptBy: () => (realmUserEvents ? registration() : undefined),
  });
  trackUserAccess(api, () => currentUserAccess().guestsSeeEveryone());
  bus.on("realm", (event: { op?: unknown; data?: unknown }) =>
    currentUserAccess().onRealmEvent(event),
  );
  const delivery = createDelivery({
    api,
    store:
      options.delivery ??
      deliveryStoreOver(storage, storage.namespace(RUNTIME_NAMESPACE), options.replyMemory),
    log,
    metrics: outside.metrics,
    directory,
    server,
    me: () => lifecycle.me!.userId,
    now,
    replyMemory: options.replyMemory,
    sendRetry: options.sendRetry,
    loopGuard: options.loopGuard,
    health: options.storageHealth,
  });
  bus.on("realm_user", (event: RealmUserEvent) => directory.onRealmUser(event));
  const watch = createHandlerWatch(options.handlers ?? {}, {
    store: storage.namespace(RUNTIME_NAMESPACE),
    log,
    registry: outside.metrics.registry,
    now,
  });
  const commands = createCommandRuntime({
    prefix,
    directory,
    rateLimit: options.rateLimit ?? { ...DEFAULT_RATE_LIMIT },
    timeZone,
    now,
    unknownCommandReply: options.unknownCommandReply ?? true,
    ignored: (ctx, why) => notify(options.observer?.ignored, ctx.message.id, why),
  });
  const router = new Router({
    guard: commands.guard,
    overlap: new OverlapRoom({
      ...(options.schedulerClock && { timers: options.schedulerClock }),
      onCalls: (running) => notify(options.observer?.overlapCalls, running),
    }),
  });
  const handler = new MessageHandler({
    quarantine: watch.quarantine,
    log,
    outside,
    dialogs,
    follows,
    prefix,
    respondTo,
    observer: options.observer,
  });
  const intake = new Intake({
    api,
    log: log.child({ component: "events" }),
    bus,
    dispatcher,
    ledger: delivery.ledger,
    handle: handler.handle,
    start: handler.start,
    narrows: catchUpNarrows(register),
    me: (): number | undefined => lifecycle.me?.userId,
    ownMessageHandled: () => outside.metrics.eventHandled("message"),
    catchUpWindow: options.catchUpWindow ?? {},
    now,
  });

  const scoped = (plugin: string): PluginApi =>
    createPluginApi(plugin, {
      api,
      log,
      router,
      bus,
      storage,
      sessions: storage.namespace("topicbot:sessions"),
      services: outside.plugins,
      users: directory,
      me: () => {
        if (!lifecycle.me)
          throw new Error(`plugin "${plugin}": bot.me is available once the bot starts`);
        return lifecycle.me;
      },
      addMiddleware: (name, mw) => {
        if (handler.isReady)
          throw new Error(`plugin "${name}": use() must be called before the bot starts`);
        middleware.push(mw);
      },
    });

  const lifecycle: BotLifecycle = new BotLifecycle({
    options,
    log,
    api,
    storage,
    bus,
    events,
    dispatcher,
    router,
    commands,
    middleware,
    delivery,
    dialogs,
    follows,
    intake,
    outside,
    handler,
    reportHandlerError: handlerErrorReporter(
      log,
      outside,
      options.errorReply ?? DEFAULT_ERROR_REPLY,
      watch.quarantine,
    ),
    watch,
    scoped,
    server,
    prefix,
    now,
    timeZone,
  });

  return {
    ...scoped("bot"),
    done: lifecycle.done,
    storage,
    directory,
    get me() {
      if (!lifecycle.me) throw new Error("bot.me is available after start()");
      return lifecycle.me;
    },
    get registration() {
      return registration();
    },
    get pending() {
      return dispatcher.pending;
    },
    commands: () => router.commands(),
    metrics: outside.metrics,
    scheduler: outside.scheduler,
    get webhookUrl() {
      return outside.webhookUrl;
    },
    webhookRoutes: outside.webhookRoutes,
    handleOutgoing: outside.handleOutgoing,
    start: () => lifecycle.start(),
    stop: () => lifecycle.stop(),
  };
}
