// createBot: assembles one bot (client, event source, intake, dispatcher, router, delivery, services, plugins) and hands back its API.
// How a message goes through it: dispatch/handling.ts; how it starts and stops: lifecycle.ts.
import { EventEmitter } from "eventemitter3";
import { createClient } from "../client/client.js";
import { DEFAULT_RATE_LIMIT } from "../commands/rate-limit.js";
import type { RegisterParams, Registration } from "../api/events.js";
import { EventQueue } from "../inbound/event-queue.js";
import { silentLogger } from "../log/logger.js";
import { createMemoryStore, type KeyValueStore } from "../state/key-value/store.js";
import { DEFAULT_MAX_MESSAGE_LENGTH, type ServerFacts } from "../context/actions.js";
import { catchUpNarrows } from "../inbound/catch-up.js";
import type { CommandInfo } from "../commands/command.js";
import { createCommandRuntime } from "../dispatch/command-runtime.js";
import type { Middleware } from "../dispatch/compose.js";
import type { MessageContext } from "../context/context.js";
import { createDelivery } from "./delivery.js";
import { deliveryStoreOver } from "../state/delivery/memory.js";
import { RUNTIME_NAMESPACE } from "../state/delivery/open.js";
import { Directory, type RealmUserEvent } from "../context/directory.js";
import { trackUserAccess, UserAccessSetting } from "../context/userAccess.js";
import { Dispatcher } from "../dispatch/dispatcher.js";
import { Intake } from "../inbound/intake.js";
import { OverlapRoom } from "../dispatch/overlap-lanes.js";
import type { BotAccount } from "../model/account.js";
import { handlerErrorReporter } from "../dispatch/handler-errors.js";
import { createHandlerWatch } from "../dispatch/handler-watch.js";
import type { PluginErrorHandler } from "../dispatch/plugin-error.js";
import { MessageHandler } from "../dispatch/handling.js";
import { createPluginApi, type PluginApi } from "./plugin-api.js";
import { Router } from "../dispatch/router.js";
import { DEFAULT_LIMITS } from "../webhooks/config.js";
import { createBotServices, type BotServicesView } from "./services.js";
import type { BotOptions } from "./options.js";
import { Dialogs } from "../context/session.js";
import { Follows } from "../context/follows.js";
import { notify } from "../model/observer.js";
import { BOT_FETCH_EVENT_TYPES } from "../inbound/registration.js";
import { isTimeZone } from "../context/time.js";
import { processTimeZone } from "../time/zoned.js";
import { BotLifecycle } from "./lifecycle.js";
import { createCards } from "../cards/index.js";
import { systemClock } from "../scheduler/clock.js";
import { TopicMoves } from "../dispatch/topic-moves.js";

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
  /**
   * Registers the handler of handler errors that no middleware caught (one at a time; a second call
   * replaces the first). It gets a PluginError (plugin, handler, message ID, `ctx`, `cause`) and
   * decides what the sender hears: the default log line and failure reply are not sent. The bot
   * goes on with the next message either way. Errors of a call of an `overlap` strategy come here
   * too, without passing middleware (the router has returned by then).
   *
   * @example
   * bot.catch((error) => {
   *   log.error({ err: error.cause, plugin: error.plugin }, error.message);
   *   return error.ctx.reply("Something went wrong; the admins are told.");
   * });
   */
  catch(handler: PluginErrorHandler): void;
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
  const configuredZone = options.timeZone;
  if (configuredZone !== undefined && !isTimeZone(configuredZone))
    throw new RangeError(`timeZone: unknown time zone "${configuredZone}"`);
  /** The bot's time zone: the configured one, else the process's, resolved on first use. */
  const timeZone = (): string => configuredZone ?? processTimeZone();
  const storage = options.storage ?? createMemoryStore(now);
  const bus = new EventEmitter();
  const middleware: Middleware<MessageContext>[] = [];
  /** The handler `bot.catch` registered: told of handler errors no middleware caught. */
  let caught: PluginErrorHandler | undefined;
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
  const moves = new TopicMoves(bus, {
    follows,
    dialogs,
    sessionStores: () =>
      ["bot", ...(options.plugins ?? []).map((e) => ("plugin" in e ? e.plugin : e).name)].map(
        (name) => storage.namespace("topicbot:sessions").namespace(name),
      ),
    overlap: router.overlap,
    log,
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
    moves,
  });
  const cards = createCards({
    api,
    store: storage.namespace("topicbot:cards"),
    router,
    directory,
    log: log.child({ component: "cards" }),
    // Under `respondTo: mentions` the prefix addresses nothing: cards show the mention to type.
    prefix: respondTo === "mentions" ? "" : prefix,
    now,
    timeZone,
    timers: options.schedulerClock ?? systemClock,
    rehandle: (message, flags) => handler.handle(message, flags, undefined),
  });
  bus.on("reaction", cards.runtime.onReaction);
  bus.on("submessage", cards.runtime.onSubmessage);
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
      cards: cards.runtime,
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
    cards,
    reportHandlerError: handlerErrorReporter(
      log,
      outside,
      options.errorReply ?? DEFAULT_ERROR_REPLY,
      () => caught,
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
    catch(handler) {
      caught = handler;
    },
    start: () => lifecycle.start(),
    stop: () => lifecycle.stop(),
  };
}
