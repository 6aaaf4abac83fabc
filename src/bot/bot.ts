// The Bot: owns its parts (client, event source, intake, dispatcher, delivery, services, the active plugin set) and starts, reloads and stops them.
// How a message goes through it: dispatch/handling.ts; a reload: plugin-set.ts.
import { createClient, type ApiClient } from "../client/client.js";
import { DEFAULT_RATE_LIMIT } from "../commands/rate-limit.js";
import type { RegisterParams, Registration } from "../api/events.js";
import { EventQueue, type EventSource } from "../inbound/event-queue.js";
import { silentLogger, type Logger } from "../log/logger.js";
import { createMemoryStore, type KeyValueStore } from "../state/key-value/store.js";
import { DEFAULT_MAX_MESSAGE_LENGTH, type ServerFacts } from "../context/actions.js";
import { catchUpNarrows } from "../inbound/catch-up.js";
import type { CommandInfo } from "../commands/command.js";
import { createCommandRuntime } from "../dispatch/command-runtime.js";
import { compose } from "../dispatch/compose.js";
import type { ContextServices, MessageContext } from "../context/context.js";
import { createDelivery, saveOnStop, type Delivery } from "./delivery.js";
import { deliveryStoreOver } from "../state/delivery/memory.js";
import { RUNTIME_NAMESPACE } from "../state/delivery/open.js";
import type { Directory } from "../context/directory.js";
import { Dispatcher } from "../dispatch/dispatcher.js";
import { Intake } from "../inbound/intake.js";
import { OverlapRoom } from "../dispatch/overlap-lanes.js";
import { botAccount, type BotAccount } from "../model/account.js";
import {
  handledLogger,
  handlerErrorReporter,
  pluginErrorCatcher,
} from "../dispatch/handler-errors.js";
import { createHandlerWatch, type HandlerWatch } from "../dispatch/handler-watch.js";
import type { PluginErrorHandler } from "../dispatch/plugin-error.js";
import type { HandlerErrorReporter } from "../dispatch/router.js";
import { MessageHandler } from "../dispatch/handling.js";
import type { PluginApi } from "./plugin-api.js";
import { ownVerbs, type OwnVerbs } from "./own-api.js";
import { realmDirectory } from "./realm-users.js";
import { DEFAULT_LIMITS } from "../webhooks/config.js";
import {
  createBotServices,
  showServices,
  type BotServices,
  type BotServicesView,
} from "./services.js";
import type { BotOptions, BotReload } from "./options.js";
import type { Plugin, PluginInstance } from "./plugin.js";
import { EventRelay, PluginSet, pluginDescriptions } from "./plugin-set.js";
import { Dialogs } from "../context/session.js";
import { Follows } from "../context/follows.js";
import { notify } from "../model/observer.js";
import { BOT_FETCH_EVENT_TYPES } from "../inbound/registration.js";
import { isTimeZone } from "../context/time.js";
import { processTimeZone } from "../time/zoned.js";
import { describeFatal, drain } from "./fatal.js";
import { botCards, botMoves, type SetFollowerDeps } from "./set-followers.js";
import { contextServices } from "./context-services.js";

export { DEFAULT_RATE_LIMIT };

export type BotState = "new" | "starting" | "running" | "stopping" | "stopped";

const DEFAULT_ERROR_REPLY = "Sorry, something went wrong handling that. The error has been logged.";

// The plugin verbs are copied onto each bot in its constructor from the bot's own PluginApi, so
// that they follow PluginApi as it grows; the interface says so to the type checker.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Bot extends OwnVerbs, BotServicesView {}

/**
 * One bot. Its plugins are one `PluginSet`, set up at `start()`; `reload()` sets up the next set
 * beside it and swaps it in between two messages, while the event queue, the intake, the
 * dispatcher and delivery go on: no message is lost or handled twice across a reload.
 *
 * @example
 * const bot = createBot({ server: { site, email, apiKey } });
 * bot.command("ping", { description: "Check the bot is alive" }, (ctx) => ctx.reply("pong"));
 * await bot.start();
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Bot {
  /** Settles when the bot has stopped: resolves after `stop()`, rejects on a fatal error. */
  readonly done: Promise<void>;
  /** The bot's storage (each plugin sees its own namespace of it). */
  readonly storage: KeyValueStore;
  /** Users of the server, cached; what user arguments and role checks use. */
  readonly directory: Directory;
  readonly #options: BotOptions;
  readonly #log: Logger;
  readonly #api: ApiClient;
  readonly #bus = new EventRelay();
  readonly #events: EventSource;
  readonly #dispatcher: Dispatcher;
  readonly #overlap: OverlapRoom;
  readonly #commands: ReturnType<typeof createCommandRuntime>;
  readonly #delivery: Delivery;
  readonly #dialogs: Dialogs<MessageContext>;
  readonly #follows: Follows;
  readonly #intake: Intake;
  readonly #outside: BotServices;
  readonly #handler: MessageHandler;
  readonly #cards: ReturnType<typeof botCards>;
  readonly #watch: HandlerWatch;
  readonly #report: HandlerErrorReporter;
  readonly #now: () => number;
  readonly #timeZone: () => string;
  #state: BotState = "new";
  #me: BotAccount | undefined;
  /** What the event source's first registration said (the queue's own when it has one). */
  #firstRegistration: Registration | undefined;
  /** The handler `bot.catch` registered: told of handler errors no middleware caught. */
  #caught: PluginErrorHandler | undefined;
  /** The active plugin set (before start: the one the bot's own registrations go into). */
  #plugins: PluginSet;
  #pluginList: (Plugin | PluginInstance)[];
  #pipeline: ((ctx: MessageContext) => Promise<void>) | undefined;
  #services: ContextServices | undefined;
  /** The bot's own router registrations, replayed into each new set. */
  readonly #own: ((api: PluginApi) => void)[] = [];
  /** The reload in progress (reloads run one at a time). */
  #reloading: Promise<void> = Promise.resolve();
  #resolveDone!: () => void;
  #rejectDone!: (error: unknown) => void;

  constructor(options: BotOptions) {
    if (!options.client && !options.server)
      throw new TypeError("createBot needs `client` or `server`");
    this.#options = options;
    this.#pluginList = options.plugins ?? [];
    const log = (this.#log = options.logger ?? silentLogger());
    this.done = new Promise<void>((resolve, reject) => {
      this.#resolveDone = resolve;
      this.#rejectDone = reject;
    });
    this.done.catch(() => undefined);
    const outside: BotServices = (this.#outside = createBotServices(options, {
      log,
      api: () => this.#api,
      connected: () =>
        this.#state === "running" && (!(events instanceof EventQueue) || !!events.queueId),
      degraded: () => [
        ...(this.#delivery.health.degraded ? ["storage"] : []),
        ...(this.#watch.stuck() !== undefined ? ["handlers"] : []),
      ],
      degradedReasons: (): Record<string, string> => {
        const stuck = this.#watch.stuck();
        return stuck === undefined ? {} : { handlers: stuck };
      },
      polling: () => (events instanceof EventQueue ? events.pollState : undefined),
      now: options.now,
      limits: () => ({
        maxTopicLength: this.registration?.max_topic_length ?? DEFAULT_LIMITS.maxTopicLength,
        maxMessageLength: this.#server().maxMessageLength,
      }),
    }));
    const api: ApiClient = (this.#api =
      options.client ?? createClient(outside.clientOptions(options.server!)));
    const prefix = options.prefix ?? "!";
    const now = (this.#now = options.now ?? Date.now);
    const configuredZone = options.timeZone;
    if (configuredZone !== undefined && !isTimeZone(configuredZone))
      throw new RangeError(`timeZone: unknown time zone "${configuredZone}"`);
    // The configured zone, else the process's, resolved on first use.
    this.#timeZone = () => configuredZone ?? processTimeZone();
    const storage = (this.storage = options.storage ?? createMemoryStore(now));
    this.#dialogs = new Dialogs<MessageContext>({
      store: storage.namespace("topicbot:questions"),
      now,
      onError: (error) => log.warn({ err: error }, "could not store an open question"),
    });
    this.#follows = new Follows(storage.namespace("topicbot:follows"), now);
    const register: RegisterParams = {
      fetch_event_types: [...BOT_FETCH_EVENT_TYPES],
      ...options.register,
    };
    const events: EventSource = (this.#events =
      options.events ??
      new EventQueue({
        client: api,
        logger: log.child({ component: "events" }),
        register,
        now,
        ...options.eventLoop,
      }));
    this.#dispatcher = new Dispatcher({
      concurrency: options.concurrency ?? 8,
      maxQueued: options.maxQueued ?? 100,
      onError: (error, key) => log.error({ err: error, conversation: key }, "message task failed"),
    });
    this.directory = realmDirectory({
      api,
      bus: this.#bus,
      register,
      ownQueue: events instanceof EventQueue,
      now,
      registration: () => this.registration,
    });
    this.#delivery = createDelivery({
      api,
      store:
        options.delivery ??
        deliveryStoreOver(storage, storage.namespace(RUNTIME_NAMESPACE), options.replyMemory),
      log,
      metrics: outside.metrics,
      directory: this.directory,
      server: () => this.#server(),
      me: () => this.#me!.userId,
      now,
      replyMemory: options.replyMemory,
      sendRetry: options.sendRetry,
      loopGuard: options.loopGuard,
      health: options.storageHealth,
    });
    this.#watch = createHandlerWatch(options.handlers ?? {}, {
      store: storage.namespace(RUNTIME_NAMESPACE),
      log,
      registry: outside.metrics.registry,
      now,
    });
    this.#commands = createCommandRuntime({
      prefix,
      directory: this.directory,
      rateLimit: options.rateLimit ?? { ...DEFAULT_RATE_LIMIT },
      timeZone: this.#timeZone,
      now,
      unknownCommandReply: options.unknownCommandReply ?? true,
      ignored: (ctx, why) => notify(options.observer?.ignored, ctx.message.id, why),
    });
    this.#overlap = new OverlapRoom({
      ...(options.schedulerClock && { timers: options.schedulerClock }),
      onCalls: (running) => notify(options.observer?.overlapCalls, running),
    });
    const followers: SetFollowerDeps = {
      ...{ api, log, storage, bus: this.#bus, directory: this.directory, prefix, now },
      ...{ dialogs: this.#dialogs, follows: this.#follows, overlap: this.#overlap },
      respondTo: options.respondTo ?? "addressed",
      ...{ timeZone: this.#timeZone, timers: options.schedulerClock },
      router: () => this.#plugins.router,
      plugins: () => this.#pluginList,
      rehandle: (message, flags) => this.#handler.handle(message, flags, undefined),
    };
    this.#handler = new MessageHandler({
      quarantine: this.#watch.quarantine,
      log,
      outside,
      dialogs: this.#dialogs,
      follows: this.#follows,
      prefix,
      respondTo: followers.respondTo,
      observer: options.observer,
      moves: botMoves(followers),
    });
    const cards = (this.#cards = botCards(followers));
    this.#intake = new Intake({
      api,
      log: log.child({ component: "events" }),
      bus: this.#bus,
      dispatcher: this.#dispatcher,
      ledger: this.#delivery.ledger,
      handle: this.#handler.handle,
      start: this.#handler.start,
      narrows: catchUpNarrows(register),
      me: (): number | undefined => this.#me?.userId,
      ownMessageHandled: () => outside.metrics.eventHandled("message"),
      catchUpWindow: options.catchUpWindow ?? {},
      now,
    });
    this.#report = handlerErrorReporter(
      log,
      outside,
      options.errorReply ?? DEFAULT_ERROR_REPLY,
      () => this.#caught,
      this.#watch.quarantine,
    );
    this.#plugins = this.#newSet(undefined);
    showServices(this, outside);
    Object.assign(
      this,
      ownVerbs(
        {
          api,
          log,
          bus: this.#bus,
          storage,
          sessions: storage.namespace("topicbot:sessions"),
          services: outside.plugins,
          users: this.directory,
          cards: cards.runtime,
          me: () => this.me,
        },
        () => this.#plugins,
        this.#own,
      ),
    );
  }

  /** The bot's own account; available after `start()`. */
  get me(): BotAccount {
    if (!this.#me) throw new Error("bot.me is available after start()");
    return this.#me;
  }

  get registration(): Registration | undefined {
    const events = this.#events;
    return (
      (events instanceof EventQueue ? events.registration : undefined) ?? this.#firstRegistration
    );
  }

  /**
   * Messages being handled, waiting in the dispatcher, or held by an `overlap` strategy until the
   * call that takes them ends (for monitoring and tests).
   */
  get pending(): number {
    return this.#dispatcher.pending;
  }

  /** Every command of every plugin, the built-in `help` included once started. */
  commands(): CommandInfo[] {
    return this.#plugins.router.commands();
  }

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
  catch(handler: PluginErrorHandler): void {
    this.#caught = handler;
  }

  /** Resolves the bot's identity, runs plugin setup in order, registers the queue and starts polling. */
  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error(`bot cannot start: it is ${this.#state}`);
    this.#state = "starting";
    const options = this.#options;
    const api = this.#api;
    const log = this.#log;
    try {
      const own = options.ownProfile ?? (await api.users.me());
      const me = botAccount({ userId: own.user_id, email: own.email, fullName: own.full_name });
      this.#me = me;
      this.#services = contextServices(me, {
        ...{ api, log, storage: this.storage, delivery: this.#delivery, cards: this.#cards },
        ...{ dialogs: this.#dialogs, follows: this.#follows, outside: this.#outside },
        ...{ now: this.#now, timeZone: this.#timeZone, server: () => this.#server() },
      });
      this.#cards.runtime.ready(this.#services);
      await this.#plugins.setUp(this.#pluginList);
      this.#swapIn(this.#plugins, undefined);
      await this.#delivery.load();
      await this.#watch.quarantine.load();
      await this.#dialogs.load();
      await this.#follows.load();
      await this.#intake.baseline();
      await this.#outside.start({
        me,
        context: this.#services,
        pipeline: (ctx) => this.#pipeline!(ctx),
        dialogs: this.#dialogs,
        prefix: options.prefix ?? "!",
      });
      options.attach?.({
        handle: this.#handler.handleWhole,
        emit: (event) => this.#bus.emit(event.type, event),
      });
      this.#firstRegistration = await this.#events.start(
        this.#outside.observe(this.#intake.sink, options.observer?.event),
        {
          onRegistered: (_registration, { signal }) => this.#intake.catchUp(signal),
          onFatal: (error) => {
            const fatal = describeFatal(error, api.site);
            log.error({ err: error }, `stopping: ${fatal.message}`);
            void this.#stopWith(fatal);
          },
        },
      );
      this.#state = "running";
      await this.#cards.start();
      if (options.handleSignals ?? true) {
        process.once("SIGINT", this.#onSignal);
        process.once("SIGTERM", this.#onSignal);
      }
      log.info({ bot: me.fullName, email: me.email, userId: me.userId }, "bot started");
    } catch (error) {
      this.#state = "stopped";
      await this.#outside.stop();
      if (!options.client) await api.close();
      throw describeFatal(error, api.site);
    }
  }

  /**
   * Sets up `changes.plugins` (default: the running plugins again) beside the running ones and
   * swaps them in between two messages; the event queue, the messages waiting and running, open
   * questions, storage and delivery go on untouched. Messages whose handling began before the
   * swap finish with the old plugins, later ones go to the new. A setup that fails leaves the
   * running plugins as they were and rejects with its error. Reloads run one at a time.
   */
  reload(changes: BotReload = {}): Promise<void> {
    const run = this.#reloading.then(() => this.#reload(changes));
    this.#reloading = run.catch(() => undefined);
    return run;
  }

  /** Stops polling, lets handlers finish (bounded), deletes the queue and closes connections. Safe to call twice. */
  stop(): Promise<void> {
    return this.#stopWith(undefined);
  }

  async #reload(changes: BotReload): Promise<void> {
    if (this.#state !== "running") throw new Error(`bot cannot reload: it is ${this.#state}`);
    const plugins = changes.plugins ?? this.#pluginList;
    const previous = this.#plugins;
    const next = this.#newSet(previous);
    try {
      for (const replay of this.#own) replay(next.api("bot"));
      await next.setUp(plugins);
    } catch (error) {
      next.close();
      throw error;
    }
    // Stopped while the new plugins set up: they never run.
    if ((this.#state as BotState) !== "running") {
      next.close();
      throw new Error(`bot cannot reload: it is ${this.#state}`);
    }
    // Before the pipeline is composed: the handled-handler log line is there at debug level only.
    if (changes.logLevel !== undefined) this.#log.level = changes.logLevel;
    this.#pluginList = plugins;
    this.#swapIn(next, previous);
    await this.#outside.reload(changes.schedules);
    this.#log.info(
      {
        plugins: plugins.map((p) => ("plugin" in p ? p.plugin : p).name),
        commands: this.commands().map((c) => c.name),
        schedules: this.scheduler.jobs().map((j) => j.name),
      },
      "reloaded",
    );
  }

  /** A new plugin set over the bot's parts, to replace `previous`. */
  #newSet(previous: PluginSet | undefined): PluginSet {
    return new PluginSet({
      api: this.#api,
      log: this.#log,
      storage: this.storage,
      sessions: this.storage.namespace("topicbot:sessions"),
      users: this.directory,
      me: () => this.#me,
      guard: this.#commands.guard,
      overlap: this.#overlap,
      outlets: this.#outside.outlets,
      cards: this.#cards.runtime,
      previous,
    });
  }

  /**
   * Puts `next` to work in one synchronous step (no message sees neither set): the built-in
   * `help`, the pipeline composed, `previous` closed, the bus relaying to `next`'s listeners.
   */
  #swapIn(next: PluginSet, previous: PluginSet | undefined): void {
    const report = this.#report;
    // Once per set, after its plugins (which may have taken the names approve and reject).
    this.#cards.approvals.register(next.router);
    this.#commands.registerHelp(next.router, pluginDescriptions(this.#pluginList));
    const pipeline = compose([
      this.#handler.admit,
      pluginErrorCatcher(report),
      ...next.middleware,
      next.router.middleware(report, handledLogger(this.#log), this.#watch.limits),
      this.#commands.unknownCommand(next.router),
    ]);
    next.activate(previous);
    this.#bus.target = next.events;
    this.#plugins = next;
    this.#pipeline = pipeline;
    this.#handler.ready(pipeline, this.#services!);
  }

  #server(): ServerFacts {
    const registration = this.registration;
    return {
      featureLevel: registration?.zulip_feature_level,
      maxMessageLength: registration?.max_message_length ?? DEFAULT_MAX_MESSAGE_LENGTH,
    };
  }

  readonly #onSignal = (signal: NodeJS.Signals): void => {
    this.#log.info({ signal }, "stopping");
    void this.stop();
  };

  async #stopWith(error: unknown): Promise<void> {
    if (this.#state === "stopping" || this.#state === "stopped")
      return this.done.catch(() => undefined);
    this.#state = "stopping";
    process.off("SIGINT", this.#onSignal);
    process.off("SIGTERM", this.#onSignal);
    const log = this.#log;
    const events = this.#events;
    try {
      await this.#outside.stop();
      // 1. No more polling. 2. Let handlers finish (bounded). 3. Delete the queue. 4. Flush.
      await (events.halt ? events.halt() : events.stop());
      // Messages an overlap strategy still holds for a later call are left for the next start.
      this.#overlap.close();
      const stopTimeoutMs = this.#options.stopTimeoutMs ?? 10_000;
      const drained = await drain(
        {
          idle: () => this.#dispatcher.whenIdle(),
          cancelQuestions: () => {
            this.#dialogs.cancelAll();
            this.#cards.stop();
          },
          pipelinesEnded: () => this.#handler.inflight.whenNone(),
        },
        stopTimeoutMs,
        this.#now,
      );
      if (!drained)
        log.warn(
          { running: this.#delivery.ledger.running, stopTimeoutMs },
          "handlers still running at the stop timeout; stopping anyway (their messages are caught up on the next start)",
        );
      if (events.halt) await events.stop();
      // Handlers cut short by the stop count towards quarantine: their messages come again.
      if (!drained) await this.#watch.countCutShort();
      error ??= await saveOnStop(this.#delivery, this.storage, log);
    } finally {
      if (!this.#options.client) await this.#api.close();
      this.#state = "stopped";
      log.info("bot stopped");
      log.flush();
      if (error === undefined) this.#resolveDone();
      else this.#rejectDone(error);
    }
  }
}

/** Creates a bot: `new Bot(options)` (see the example there). */
export function createBot(options: BotOptions): Bot {
  return new Bot(options);
}
