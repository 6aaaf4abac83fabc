// createBot: wires the event source, the event bus, the middleware pipeline, the router and the plugins.
import { EventEmitter } from "eventemitter3";
import { createClient, type ApiClient, type ClientOptions } from "../client/client.js";
import { ApiError } from "../client/errors.js";
import {
  messageEvent,
  type AnyEvent,
  type RegisterParams,
  type Registration,
} from "../api/events.js";
import { EventQueue, type EventSource } from "../events/queue.js";
import { silentLogger, type Logger } from "../log/logger.js";
import { createMemoryStore, type KeyValueStore } from "../storage/store.js";
import { DEFAULT_MAX_MESSAGE_LENGTH, type ServerFacts } from "./actions.js";
import type { CommandInfo } from "./commands/command.js";
import type { RateLimit } from "./commands/guards.js";
import { createCommandRuntime } from "./commands/runtime.js";
import { compose, type Middleware } from "./compose.js";
import {
  createMessageContext,
  dialogKey,
  type ContextServices,
  type MessageContext,
} from "./context.js";
import { Directory } from "./directory.js";
import { address, type BotIdentity } from "./gate.js";
import type { PluginInstance, Plugin } from "./plugin.js";
import { createPluginApi, type PluginApi } from "./plugin-api.js";
import { Router } from "./router.js";
import { createBotServices, type BotServicesView, type ServiceOptions } from "./services.js";
import { Dialogs } from "./session.js";
import { isTimeZone } from "./time.js";

export type { PluginApi, EventListener } from "./plugin-api.js";

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
  const dialogs = new Dialogs<MessageContext>();
  const inflight = new Set<Promise<void>>();
  const events =
    options.events ??
    new EventQueue({
      client: api,
      logger: log.child({ component: "events" }),
      register: { fetch_event_types: ["realm", "realm_user"], ...options.register },
    });

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

  async function handleMessage(raw: AnyEvent): Promise<void> {
    const parsed = messageEvent.safeParse(raw);
    if (!parsed.success) {
      log.warn(
        { eventId: raw.id, issue: parsed.error.issues[0]?.message },
        "skipping a malformed message event",
      );
      return;
    }
    const { message, flags } = parsed.data;
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
    // The answer to an open question goes to the handler that asked, not to the router.
    if (
      message.sender_id !== me!.userId &&
      dialogs.offer(dialogKey(ctx.conversation, message.sender_id), ctx)
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

  async function onEvents(batch: AnyEvent[]): Promise<void> {
    for (const event of batch) {
      bus.emit(event.type, event);
      if (event.type === "message") {
        await handleMessage(event).catch((error: unknown) =>
          log.error({ err: error, eventId: event.id }, "message pipeline failed"),
        );
      }
    }
  }

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
        services = {
          api,
          me,
          log,
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
        if (events instanceof EventQueue) {
          events.onFatal = (error) => {
            log.error({ err: error }, "stopping: the server refused the bot");
            void stopWith(error);
          };
        }
        await outside.start({ me, context: services, pipeline, dialogs, prefix });
        firstRegistration = await events.start(outside.observe(onEvents));
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
        throw describeStartError(error, api.site);
      }
    },

    stop: () => stopWith(undefined),
  };

  async function stopWith(error: unknown): Promise<void> {
    if (state === "stopping" || state === "stopped") return done.catch(() => undefined);
    state = "stopping";
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    try {
      await outside.stop();
      await events.stop();
      // Open questions end unanswered, so the handlers waiting on them can finish.
      dialogs.cancelAll();
      await Promise.all([...inflight]);
      await storage.flush();
    } finally {
      if (!options.client) await api.close();
      state = "stopped";
      log.info("bot stopped");
      if (error === undefined) resolveDone();
      else rejectDone(error);
    }
  }

  return bot;
}

/** Start-up failures a user can fix, in words that say what to check. */
function describeStartError(error: unknown, site: string): unknown {
  if (error instanceof ApiError && (error.code === "INVALID_API_KEY" || error.status === 401)) {
    return new Error(
      `the server at ${site} refused the bot's credentials (${error.code}); check server.email and server.apiKey`,
      { cause: error },
    );
  }
  return error;
}
