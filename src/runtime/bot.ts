// createBot: wires the event source, the event bus, the middleware pipeline, the router and the plugins.
import { timeZoneOption } from "../time/zone-option.js";
import { EventEmitter } from "eventemitter3";
import { createClient, type ApiClient, type ClientOptions } from "../client/client.js";
import type { BackoffOptions } from "../client/backoff.js";
import type { DeadlinePolicy } from "../client/retry.js";
import { ApiError } from "../client/errors.js";
import { describeHandlerFailure } from "../log/handler-failure.js";
import { DEFAULT_RATE_LIMIT } from "./commands/rate-limit.js";
import type { AnyEvent, RegisterParams, Registration } from "../api/events.js";
import type { Message } from "../api/messages.js";
import { EventQueue, type EventSource } from "../events/queue.js";
import { silentLogger, type Logger } from "../log/logger.js";
import type { StorageHealth } from "../storage/health.js";
import { createMemoryStore, type KeyValueStore } from "../storage/store.js";
import { DEFAULT_MAX_MESSAGE_LENGTH, type ServerFacts } from "./context/actions.js";
import { catchUpNarrows, type CatchUpWindow } from "./delivery/catch-up.js";
import type { CommandInfo } from "./commands/command.js";
import type { RateLimit } from "./commands/guards.js";
import { createCommandRuntime } from "./commands/runtime.js";
import { compose, type Middleware } from "./dispatch/compose.js";
import {
  MessageContextObject,
  takeAnswer,
  type ContextServices,
  type MessageContext,
} from "./context/context.js";
import { createDelivery, saveOnStop } from "./delivery/delivery.js";
import { KeyValueDeliveryStore } from "./delivery/kv-store.js";
import { RUNTIME_NAMESPACE } from "./delivery/open-store.js";
import { DeliveryFencedError, type DeliveryStore } from "./delivery/store.js";
import { Directory } from "./context/directory.js";
import { Dispatcher } from "./dispatch/dispatcher.js";
import { Intake, type HandedOn } from "./delivery/intake.js";
import { OverlapRoom } from "./dispatch/overlap-lanes.js";
import { MessageTurn, type TurnHooks } from "./dispatch/turn.js";
import { LoopGuardError, type LoopGuardOptions } from "./delivery/loop-guard.js";
import {
  address,
  botAccount,
  isOneToOne,
  type BotAccount,
  type RespondTo,
} from "./dispatch/gate.js";
import type { PluginInstance, Plugin } from "./plugin.js";
import { createPluginApi, type PluginApi } from "./plugin-api.js";
import { Router, type HandledReporter, type HandlerErrorReporter } from "./dispatch/router.js";
import { DEFAULT_LIMITS } from "../webhooks/config.js";
import { createBotServices, type BotServicesView, type ServiceOptions } from "./services.js";
import { Dialogs } from "./context/session.js";
import { Follows } from "../agents/follows.js";
import { conversationKey } from "./dispatch/conversation.js";
import { notify, type BotObserver } from "./observer.js";
import { isTimeZone } from "./context/time.js";

export type { PluginApi, EventListener } from "./plugin-api.js";

export interface BotOptions extends ServiceOptions {
  /** A ready client; or give `server` and one is created (and closed on stop). */
  client?: ApiClient;
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
    state === "running" && (!(events instanceof EventQueue) || !!events.queueId);
  const outside = createBotServices(options, {
    log,
    api: () => api,
    connected,
    degraded: () => (delivery.health.degraded ? ["storage"] : []),
    now: options.now,
    limits: () => ({
      maxTopicLength: registration()?.max_topic_length ?? DEFAULT_LIMITS.maxTopicLength,
      maxMessageLength: server().maxMessageLength,
    }),
  });
  const api = options.client ?? createClient(outside.clientOptions(options.server!));
  const prefix = options.prefix ?? "!";
  const respondTo = options.respondTo ?? "addressed";
  const errorReply = options.errorReply ?? DEFAULT_ERROR_REPLY;
  const now = options.now ?? Date.now;
  const timeZone =
    timeZoneOption(options, "createBot") ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!isTimeZone(timeZone)) throw new RangeError(`timeZone: unknown time zone "${timeZone}"`);
  const storage = options.storage ?? createMemoryStore(now);
  const bus = new EventEmitter();
  const middleware: Middleware<MessageContext>[] = [];
  const dialogs = new Dialogs<MessageContext>({
    store: storage.namespace("topicbot:questions"),
    now,
    onError: (error) => log.warn({ err: error }, "could not store an open question"),
  });
  const follows = new Follows(storage.namespace("topicbot:follows"), now);
  const inflight = new Inflight();
  const register: RegisterParams = {
    fetch_event_types: ["realm", "realm_user"],
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
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;

  let me: BotAccount | undefined;
  let firstRegistration: Registration | undefined;
  let pipeline: ((ctx: MessageContext) => Promise<void>) | undefined;
  let state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  let resolveDone!: () => void;
  let rejectDone!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  done.catch(() => undefined);

  const registration = (): Registration | undefined =>
    (events instanceof EventQueue ? events.registration : undefined) ?? firstRegistration;
  const server = (): ServerFacts => ({
    featureLevel: registration()?.zulip_feature_level,
    maxMessageLength: registration()?.max_message_length ?? DEFAULT_MAX_MESSAGE_LENGTH,
  });
  const directory = new Directory(api, { now, featureLevel: () => server().featureLevel });
  const delivery = createDelivery({
    api,
    store:
      options.delivery ??
      new KeyValueDeliveryStore(storage.namespace(RUNTIME_NAMESPACE), options.replyMemory),
    log,
    metrics: outside.metrics,
    directory,
    server,
    me: () => me!.userId,
    now,
    replyMemory: options.replyMemory,
    sendRetry: options.sendRetry,
    loopGuard: options.loopGuard,
    health: options.storageHealth,
  });
  const { ledger } = delivery;
  bus.on("realm_user", () => directory.invalidate());
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

  /**
   * A handler threw: logged with its plugin, and the sender told as the handler chose (see
   * ListenerOptions.errorReply). An action the server refused is logged as one line with its
   * endpoint and code, and by default gets no reply from a listener (only from a command).
   */
  const reportHandlerError: HandlerErrorReporter = async (error, ctx, origin) => {
    outside.failed(ctx);
    // The guard logged why, once; an error reply would only be refused as well.
    if (error instanceof LoopGuardError) return;
    // Cluster mode: this node lost the message's partition; its new owner handles it.
    if (error instanceof DeliveryFencedError)
      return log.info({ messageId: ctx.message.id }, error.message);
    const refused = error instanceof ApiError;
    const handler = ctx.command ? `command ${ctx.command.name}` : "handler";
    const failure = describeHandlerFailure(error, origin.plugin, handler, ctx.message.id);
    log.error(failure.fields, failure.message);
    // A listener's action the server refused is logged only, unless the listener asks otherwise.
    const choice = origin.errorReply ?? (origin.kind !== "listener" || !refused);
    const text = choice === true ? errorReply : choice;
    if (text === false) return;
    await ctx
      .reply(failure.replyDetail && choice === true ? `${text} (${failure.replyDetail})` : text)
      .catch((replyError: unknown) =>
        log.warn({ err: replyError }, "could not send the error reply"),
      );
  };

  const scoped = (plugin: string): PluginApi =>
    createPluginApi(plugin, {
      api,
      log,
      router,
      bus,
      storage,
      sessions: storage.namespace("topicbot:sessions"),
      services: outside.plugins,
      me: () => {
        if (!me) throw new Error(`plugin "${plugin}": bot.me is available once the bot starts`);
        return me;
      },
      addMiddleware: (name, mw) => {
        if (pipeline)
          throw new Error(`plugin "${name}": use() must be called before the bot starts`);
        middleware.push(mw);
      },
    });

  /** With `LOG_LEVEL=debug`, one line per handled message: plugin, handler and duration. */
  const logHandled = (): HandledReporter | undefined =>
    log.isLevelEnabled?.("debug")
      ? (ctx, { plugin, kind, ms }) =>
          log.debug(
            {
              messageId: ctx.message.id,
              plugin,
              handler: ctx.command ? `command ${ctx.command.name}` : kind,
              durationMs: Math.round(ms * 1000) / 1000,
            },
            `handled message ${ctx.message.id}`,
          )
      : undefined;
  /**
   * The built-in admission, one stage that runs for every message: the bot's own messages stop
   * here; who follows the conversation is marked (`ctx.follow`, and those follows kept alive);
   * then the gate. Synchronous unless someone follows a conversation, so that compose makes no
   * promise and no `next` closure for three checks.
   */
  const admit: Middleware<MessageContext> = (ctx, next) => {
    if (ctx.message.sender_id === ctx.me.userId) return undefined;
    if (follows.maybeAny) return markFollowers(ctx).then(() => gate(ctx, next));
    return gate(ctx, next);
  };
  const markFollowers = async (ctx: MessageContext): Promise<void> => {
    const key = conversationKey(ctx.conversation);
    ctx.followedBy = await follows.followers(key);
    if (ctx.followedBy.length > 0) await follows.touch(key);
  };
  const gate: Middleware<MessageContext> = (ctx, next) => {
    if (ctx.addressedVia !== null || respondTo === "all" || ctx.followedBy.length > 0)
      return next();
    notify(options.observer?.ignored, ctx.message.id, { reason: "not-addressed" });
    return undefined;
  };

  let services: ContextServices | undefined;

  /**
   * Runs one message; resolves when its conversation may move on: when the pipeline ends (with
   * the hand-over when a handler's overlap strategy holds the message for a later call), or
   * earlier when a handler waits for an answer (ctx.ask). One turn object and two `then`
   * callbacks per message, without an async frame, as it runs for every message.
   */
  function handleMessage(message: Message, flags: string[]): Promise<HandedOn | undefined> {
    const turn = new MessageTurn(turnHooks);
    const ctx = new MessageContextObject({
      message,
      flags,
      addressing: address(message.content, {
        isDirect: message.type === "private",
        oneToOne: isOneToOne(message),
        bot: me!,
        prefix,
        respondTo,
      }),
      services: services!,
      turn,
    });
    turn.ctx = ctx;
    // The answer to an open question goes to the handler that asked, not to the router; in
    // outgoing-webhook mode a mention's queue copy is not offered, or one answer would count twice.
    if (dialogs.mayHave() && message.sender_id !== me!.userId && !outside.leftToWebhook(ctx))
      void takeAnswer(ctx, dialogs)
        .then((taken) => (taken ? turn.end() : runTurn(turn)))
        .catch((error: unknown) => {
          log.error({ err: error, messageId: message.id }, "message pipeline failed");
          turn.end();
        });
    else runTurn(turn);
    return turn.released;
  }

  /** Counts a message's outcome when its pipeline ended, and logs a pipeline that threw. */
  const turnHooks: TurnHooks = {
    ended(ctx, threw, error) {
      outside.finished(ctx, threw);
      if (threw) log.error({ err: error, messageId: ctx.message.id }, "message pipeline failed");
      inflight.leave();
    },
  };

  /** Runs the pipeline for the turn's context (ctx.ask may release the turn before it ends). */
  function runTurn(turn: MessageTurn): void {
    if (outside.leaveToWebhook(turn.ctx)) return turn.end();
    inflight.enter();
    turn.follow(pipeline!(turn.ctx));
  }

  /**
   * Cluster mode acknowledges a message when `handle` resolves, so there the conversation waits
   * for the call that takes the message: overlap strategies run as `queue` (docs/agents.md).
   */
  async function handleWhole(message: Message, flags: string[]): Promise<void> {
    const later = await handleMessage(message, flags);
    if (later) await later.delivered;
  }

  const intake = new Intake({
    api,
    log: log.child({ component: "events" }),
    bus,
    dispatcher,
    ledger,
    handle: handleMessage,
    narrows: catchUpNarrows(register),
    me: () => me?.userId,
    catchUpWindow: options.catchUpWindow ?? {},
    now,
  });

  const onSignal = (signal: NodeJS.Signals): void => {
    log.info({ signal }, "stopping");
    void bot.stop();
  };

  const top = scoped("bot");
  const bot: Bot = {
    ...top,
    done,
    storage,
    directory,
    get me() {
      if (!me) throw new Error("bot.me is available after start()");
      return me;
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

    async start() {
      if (state !== "new") throw new Error(`bot cannot start: it is ${state}`);
      state = "starting";
      try {
        const own = await api.users.me();
        me = botAccount({ userId: own.user_id, email: own.email, fullName: own.full_name });
        services = {
          api,
          me,
          log,
          sendMessage: delivery.outbox.send,
          server,
          sessions: storage.namespace("topicbot:sessions"),
          dialogs,
          follows,
          now,
          timeZone,
          guard: delivery.replies.guard,
          firstReply: outside.firstReply,
        };
        const about = new Map<string, string | undefined>();
        for (const entry of options.plugins ?? []) {
          const { plugin, settings } =
            "plugin" in entry ? entry : { plugin: entry, settings: undefined };
          about.set(plugin.name, plugin.description);
          try {
            router.pluginOverlap(plugin.name, plugin.overlap);
            const config = plugin.config ? plugin.config.parse(settings ?? {}) : settings;
            await plugin.setup(scoped(plugin.name), config);
          } catch (error) {
            throw new Error(
              `plugin "${plugin.name}" failed in setup: ${error instanceof Error ? error.message : String(error)}`,
              { cause: error },
            );
          }
        }
        commands.registerHelp(router, about);
        pipeline = compose([
          admit,
          ...middleware,
          router.middleware(reportHandlerError, logHandled()),
          commands.unknownCommand(router),
        ]);
        await delivery.load();
        await dialogs.load();
        await follows.load();
        await intake.baseline();
        await outside.start({ me, context: services, pipeline, dialogs, prefix });
        options.attach?.({ handle: handleWhole, emit: (event) => bus.emit(event.type, event) });
        const sink = outside.observe(intake.sink);
        const observed = options.observer?.event;
        firstRegistration = await events.start(
          observed
            ? (received, signal) => {
                for (const event of received) notify(observed, event);
                return sink(received, signal);
              }
            : sink,
          {
            onRegistered: (_registration, { signal }) => intake.catchUp(signal),
            onFatal: (error) => {
              const fatal = describeFatal(error, api.site);
              log.error({ err: error }, `stopping: ${fatal.message}`);
              void stopWith(fatal);
            },
          },
        );
        state = "running";
        if (options.handleSignals ?? true) {
          process.once("SIGINT", onSignal);
          process.once("SIGTERM", onSignal);
        }
        log.info({ bot: me.fullName, email: me.email, userId: me.userId }, "bot started");
      } catch (error) {
        state = "stopped";
        await outside.stop();
        if (!options.client) await api.close();
        throw describeFatal(error, api.site);
      }
    },

    stop: () => stopWith(undefined),
  };

  /** Resolves true when `work` finished within `ms`, false when the time ran out first. */
  async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([work.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function stopWith(error: unknown): Promise<void> {
    if (state === "stopping" || state === "stopped") return done.catch(() => undefined);
    state = "stopping";
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    try {
      await outside.stop();
      // 1. No more polling. 2. Let handlers finish (bounded). 3. Delete the queue. 4. Flush.
      await (events.halt ? events.halt() : events.stop());
      // Messages an overlap strategy still holds for a later call are left for the next start.
      router.overlap.close();
      const deadline = now() + stopTimeoutMs;
      let drained = await within(dispatcher.whenIdle(), stopTimeoutMs);
      // Open questions end unanswered, so the handlers waiting on them can finish.
      dialogs.cancelAll();
      if (drained) drained = await within(inflight.whenNone(), Math.max(0, deadline - now()));
      if (!drained)
        log.warn(
          { running: ledger.running, stopTimeoutMs },
          "handlers still running at the stop timeout; stopping anyway (their messages are caught up on the next start)",
        );
      if (events.halt) await events.stop();
      error ??= await saveOnStop(delivery, storage, log);
    } finally {
      if (!options.client) await api.close();
      state = "stopped";
      log.info("bot stopped");
      log.flush();
      if (error === undefined) resolveDone();
      else rejectDone(error);
    }
  }

  return bot;
}

/** Counts pipelines running; `whenNone()` resolves when none is (stop waits for them). */
class Inflight {
  #count = 0;
  #waiters: (() => void)[] = [];

  enter(): void {
    this.#count++;
  }

  leave(): void {
    if (--this.#count > 0 || this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  whenNone(): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
}

/** Failures that end the bot (at start or later), in words that say what to check. */
export function describeFatal(error: unknown, site: string): Error {
  if (!(error instanceof ApiError))
    return error instanceof Error ? error : new Error(String(error));
  const what =
    error.code === "USER_DEACTIVATED"
      ? `the bot's account was deactivated (USER_DEACTIVATED); reactivate it on ${site}`
      : error.code === "REALM_DEACTIVATED"
        ? `the organization at ${site} was deactivated (REALM_DEACTIVATED)`
        : error.code === "INVALID_API_KEY" || error.status === 401
          ? `the server at ${site} refused the bot's credentials (${error.code}); check server.email and server.apiKey`
          : undefined;
  return what === undefined ? error : new Error(what, { cause: error });
}
