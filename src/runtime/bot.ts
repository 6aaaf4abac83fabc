// createBot: wires the event source, the event bus, the middleware pipeline, the router and the plugins.
import { EventEmitter } from "eventemitter3";
import { createClient, type ApiClient, type ClientOptions } from "../client/client.js";
import type { BackoffOptions } from "../client/backoff.js";
import { ApiError } from "../client/errors.js";
import type { AnyEvent, RegisterParams, Registration } from "../api/events.js";
import type { Message } from "../api/messages.js";
import { EventQueue, type EventSource } from "../events/queue.js";
import { silentLogger, type Logger } from "../log/logger.js";
import { createMemoryStore, type KeyValueStore } from "../storage/store.js";
import {
  DEFAULT_MAX_MESSAGE_LENGTH,
  type SendTarget,
  type SentMessage,
  type ServerFacts,
} from "./context/actions.js";
import { catchUpNarrows, type CatchUpWindow } from "./delivery/catch-up.js";
import type { CommandInfo } from "./commands/command.js";
import type { RateLimit } from "./commands/guards.js";
import { createCommandRuntime } from "./commands/runtime.js";
import { compose, type Middleware } from "./dispatch/compose.js";
import {
  createMessageContext,
  takeAnswer,
  type ContextServices,
  type MessageContext,
} from "./context/context.js";
import { conversationKey } from "./dispatch/conversation.js";
import { DeliveryLedger } from "./delivery/ledger.js";
import { Directory } from "./context/directory.js";
import { Dispatcher } from "./dispatch/dispatcher.js";
import { Intake } from "./delivery/intake.js";
import { LoopGuard, LoopGuardError, type LoopGuardOptions } from "./delivery/loop-guard.js";
import { reliableSend, ReplyLedger } from "./delivery/outbox.js";
import { address, type BotIdentity } from "./dispatch/gate.js";
import type { PluginInstance, Plugin } from "./plugin.js";
import { createPluginApi, type PluginApi } from "./plugin-api.js";
import { Router } from "./dispatch/router.js";
import { createBotServices, type BotServicesView, type ServiceOptions } from "./services.js";
import { Dialogs } from "./context/session.js";
import { isTimeZone } from "./context/time.js";

export type { PluginApi, EventListener } from "./plugin-api.js";

/** Replies to one human message that the loop guard does not count (more look like a loop). */
const ANSWERS_PER_MESSAGE = 3;

export interface BotOptions extends ServiceOptions {
  /** A ready client; or give `server` and one is created (and closed on stop). */
  client?: ApiClient;
  server?: ClientOptions;
  plugins?: (Plugin | PluginInstance)[];
  /** Command prefix in channels. Default `!`. */
  prefix?: string;
  /** `addressed` (default): DMs, leading mentions and the prefix; `all`: every message reaches plugins. */
  respondTo?: "addressed" | "all";
  /** Reply sent when a handler throws; false for none. */
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
  /** Per-user command limit, e.g. `{ commands: 5, perSeconds: 10 }`; false for none. Default 10 per 10 s. */
  rateLimit?: RateLimit | false;
  /** Answer addressed messages that match no command with "did you mean". Default true. */
  unknownCommandReply?: boolean;
  /** The current time in epoch milliseconds (tests pass a fixed clock). Default `Date.now`. */
  now?: () => number;
  /** Conversations handled at the same time; messages of one conversation always run in order. Default 8. */
  concurrency?: number;
  /** Messages waiting for their conversation before polling pauses (bounded memory). Default 100. */
  maxQueued?: number;
  /** How far catch-up after a lost queue or a restart reaches; false: no catch-up. Default 5000 messages, 24 h. */
  catchUpWindow?: CatchUpWindow | false;
  /** How long `stop()` waits for running handlers before it stops anyway, in ms. Default 10 s. */
  stopTimeoutMs?: number;
  /** The long-poll loop: backoff between failed polls, the hung-poll watchdog, re-registering after long loss. */
  eventLoop?: { backoff?: BackoffOptions; watchdogMs?: number; reregisterAfterMs?: number };
  /** Resending a reply after a 5xx, a lost connection or a rate limit: attempts (default 6) and backoff. */
  sendRetry?: { attempts?: number } & BackoffOptions;
  /** Per plugin and conversation send limit; over it the plugin is paused there. false: off. */
  loopGuard?: Partial<LoopGuardOptions> | false;
  /** Incoming messages whose replies are remembered (persisted), so none is answered twice. Default 500. */
  replyMemory?: number;
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
  readonly me: BotIdentity;
  readonly registration: Registration | undefined;
  /** Every command of every plugin, the built-in `help` included once started. */
  commands(): CommandInfo[];
  /** The bot's storage (each plugin sees its own namespace of it). */
  readonly storage: KeyValueStore;
  /** Users of the server, cached; what user arguments and role checks use. */
  readonly directory: Directory;
  /** Messages handled or waiting in the dispatcher (for monitoring and tests). */
  readonly pending: number;
}

export const DEFAULT_RATE_LIMIT: RateLimit = { commands: 10, perSeconds: 10 };

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
  const outside = createBotServices(options, { log, api: () => api, connected, now: options.now });
  const api = options.client ?? createClient(outside.clientOptions(options.server!));
  const prefix = options.prefix ?? "!";
  const respondTo = options.respondTo ?? "addressed";
  const errorReply = options.errorReply ?? DEFAULT_ERROR_REPLY;
  const now = options.now ?? Date.now;
  const timeZone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!isTimeZone(timeZone)) throw new RangeError(`timeZone: unknown time zone "${timeZone}"`);
  const storage = options.storage ?? createMemoryStore(now);
  const bus = new EventEmitter();
  const middleware: Middleware<MessageContext>[] = [];
  const dialogs = new Dialogs<MessageContext>({
    store: storage.namespace("topicbot:questions"),
    now,
    onError: (error) => log.warn({ err: error }, "could not store an open question"),
  });
  const inflight = new Set<Promise<void>>();
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
  const runtimeStore = storage.namespace("topicbot:runtime");
  const ledger = new DeliveryLedger({
    store: runtimeStore,
    onError: (error) => log.error({ err: error }, "could not persist the last handled message"),
  });
  const replies = new ReplyLedger(runtimeStore, options.replyMemory);
  const loopGuard =
    options.loopGuard === false ? undefined : new LoopGuard({ now, ...options.loopGuard });
  const dispatcher = new Dispatcher({
    concurrency: options.concurrency ?? 8,
    maxQueued: options.maxQueued ?? 100,
    onError: (error, key) => log.error({ err: error, conversation: key }, "message task failed"),
  });
  const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;

  let me: BotIdentity | undefined;
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
  bus.on("realm_user", () => directory.invalidate());
  const commands = createCommandRuntime({
    prefix,
    directory,
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    timeZone,
    now,
    unknownCommandReply: options.unknownCommandReply ?? true,
  });
  const router = new Router({ guard: commands.guard });

  const reportHandlerError = async (
    error: unknown,
    ctx: MessageContext,
    origin: { plugin: string },
  ) => {
    outside.failed(ctx);
    // The guard logged why, once; an error reply would only be refused as well.
    if (error instanceof LoopGuardError) return;
    log.error(
      { err: error, plugin: origin.plugin, messageId: ctx.message.id },
      `plugin "${origin.plugin}" failed handling message ${ctx.message.id}`,
    );
    if (errorReply === false) return;
    await ctx
      .reply(errorReply)
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
      addMiddleware: (name, mw) => {
        if (pipeline)
          throw new Error(`plugin "${name}": use() must be called before the bot starts`);
        middleware.push(mw);
      },
    });

  const ignoreSelf: Middleware<MessageContext> = async (ctx, next) => {
    if (ctx.sender.userId !== ctx.me.userId) await next();
  };
  const gate: Middleware<MessageContext> = async (ctx, next) => {
    if (ctx.addressedVia !== null || respondTo === "all") await next();
  };

  let services: ContextServices | undefined;

  /**
   * Wraps a context's reply and send: the n-th reply to a message goes out once (a message handled
   * again after recovery sends nothing twice), and the loop guard may refuse a flood.
   */
  function guardReplies(ctx: MessageContext): void {
    let index = 0;
    /** The first few replies to a human's message are answers, not a flood: the guard skips them. */
    const isAnswer = async (n: number, isReply: boolean): Promise<boolean> => {
      if (!isReply || n >= ANSWERS_PER_MESSAGE) return false;
      const users = await directory.users().catch(() => []);
      const sender = users.find((u) => u.userId === ctx.message.sender_id);
      return sender !== undefined && !sender.isBot;
    };
    const wrap =
      <A>(send: (arg: A) => Promise<SentMessage>, where: (arg: A) => string, isReply: boolean) =>
      async (arg: A): Promise<SentMessage> => {
        const n = index++;
        const before = replies.sent(ctx.message.id, n);
        if (before && before.length > 0) return { id: before[0]!, ids: before };
        const plugin = ctx.plugin ?? "bot";
        const verdict =
          loopGuard && !(await isAnswer(n, isReply))
            ? loopGuard.check(plugin, where(arg))
            : undefined;
        if (verdict && !verdict.allowed) {
          const error = new LoopGuardError(plugin, where(arg), verdict.pausedUntil!);
          if (verdict.tripped)
            log.warn(
              { plugin, conversation: where(arg), pausedUntil: verdict.pausedUntil },
              `${error.message}; its messages there are dropped until then (a reply loop?)`,
            );
          throw error;
        }
        const sent = await send(arg);
        await replies
          .record(ctx.message.id, n, sent.ids)
          .catch((e: unknown) => log.error({ err: e }, "could not persist the reply ledger"));
        return sent;
      };
    ctx.reply = wrap(ctx.reply, () => conversationKey(ctx.conversation), true);
    ctx.send = wrap(
      ctx.send,
      (target: SendTarget) => JSON.stringify({ to: target.to, topic: target.topic ?? null }),
      false,
    );
  }

  async function handleMessage(message: Message, flags: string[]): Promise<void> {
    const isDirect = message.type === "private";
    let suspend!: () => void;
    const suspended = new Promise<void>((resolve) => (suspend = resolve));
    const ctx = createMessageContext({
      message,
      flags,
      addressing: address(message.content, { isDirect, bot: me!, prefix }),
      services: services!,
      suspend,
    });
    guardReplies(ctx);
    // The answer to an open question goes to the handler that asked, not to the router; in
    // outgoing-webhook mode a mention's queue copy is not offered, or one answer would count twice.
    if (
      message.sender_id !== me!.userId &&
      !outside.leftToWebhook(ctx) &&
      (await takeAnswer(ctx, dialogs))
    )
      return;
    const run = pipeline!(ctx).catch((error: unknown) =>
      log.error({ err: error, messageId: message.id }, "message pipeline failed"),
    );
    inflight.add(run);
    void run.finally(() => inflight.delete(run));
    // A handler waiting for an answer (ctx.ask) releases the message so the answer can arrive.
    await Promise.race([run, suspended]);
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
        me = { userId: own.user_id, email: own.email, fullName: own.full_name };
        const sendMessage = reliableSend({
          api,
          me: () => me!.userId,
          floor: () => ledger.highestSeen,
          log,
          ...options.sendRetry,
          backoff: options.sendRetry,
        });
        services = {
          api,
          me,
          log,
          sendMessage,
          server,
          sessions: storage.namespace("topicbot:sessions"),
          dialogs,
          now,
          timeZone,
        };
        const about = new Map<string, string | undefined>();
        for (const entry of options.plugins ?? []) {
          const { plugin, settings } =
            "plugin" in entry ? entry : { plugin: entry, settings: undefined };
          about.set(plugin.name, plugin.description);
          try {
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
          outside.middleware,
          ignoreSelf,
          gate,
          ...middleware,
          router.middleware(reportHandlerError),
          commands.unknownCommand(router),
        ]);
        await ledger.load();
        await replies.load();
        await dialogs.load();
        await intake.baseline();
        await outside.start({ me, context: services, pipeline, dialogs, prefix });
        options.attach?.({ handle: handleMessage, emit: (event) => bus.emit(event.type, event) });
        firstRegistration = await events.start(outside.observe(intake.sink), {
          onRegistered: (_registration, { signal }) => intake.catchUp(signal),
          onFatal: (error) => {
            const fatal = describeFatal(error, api.site);
            log.error({ err: error }, `stopping: ${fatal.message}`);
            void stopWith(fatal);
          },
        });
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
      const deadline = now() + stopTimeoutMs;
      let drained = await within(dispatcher.whenIdle(), stopTimeoutMs);
      // Open questions end unanswered, so the handlers waiting on them can finish.
      dialogs.cancelAll();
      if (drained)
        drained = await within(Promise.all([...inflight]), Math.max(0, deadline - now()));
      if (!drained)
        log.warn(
          { running: ledger.running, stopTimeoutMs },
          "handlers still running at the stop timeout; stopping anyway (their messages are caught up on the next start)",
        );
      if (events.halt) await events.stop();
      await storage.flush();
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
