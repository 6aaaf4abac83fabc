// createBot: wires the event source, the event bus, the middleware pipeline, the router and the plugins.
import { EventEmitter } from "eventemitter3";
import { createClient, type ApiClient, type ClientOptions } from "../client/client.js";
import { ApiError } from "../client/errors.js";
import {
  messageEvent,
  type AnyEvent,
  type EventOf,
  type RegisterParams,
  type Registration,
} from "../api/events.js";
import { EventQueue, type EventSource } from "../events/queue.js";
import { silentLogger, type Logger } from "../log/logger.js";
import type { KeyValueStore } from "../storage/store.js";
import { compose, type Middleware } from "./compose.js";
import { createMessageContext, type MessageContext } from "./context.js";
import { address, type BotIdentity } from "./gate.js";
import type { PluginInstance, Plugin } from "./plugin.js";
import { Router, type CommandInfo, type CommandSpec, type Filter, type Handler } from "./router.js";

export type EventListener<T extends string> = (event: EventOf<T>) => unknown;

/** What a plugin's `setup` gets: the registration verbs, scoped to the plugin. */
export interface PluginApi {
  /** The plugin's name. */
  readonly name: string;
  /** A child logger tagged with the plugin's name. */
  readonly log: Logger;
  /** The full typed client. */
  readonly api: ApiClient;
  command(
    name: string,
    spec: CommandSpec,
    handler: Handler<MessageContext & { command: NonNullable<MessageContext["command"]> }>,
  ): void;
  hear(pattern: RegExp, handler: Handler<MessageContext & { match: RegExpExecArray }>): void;
  filter<C extends MessageContext>(filter: Filter<C>, handler: Handler<C>): void;
  use(middleware: Middleware<MessageContext>): void;
  on<T extends string>(type: T, listener: EventListener<T>): void;
}

export interface BotOptions {
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
  /** The key-value store plugins get namespaces of (`createStore(config.storage)`); default: memory. */
  storage?: KeyValueStore;
}

export interface Bot extends Omit<PluginApi, "name"> {
  /** Resolves the bot's identity, runs plugin setup in order, registers the queue and starts polling. */
  start(): Promise<void>;
  /** Stops polling, deletes the queue and closes connections. Safe to call twice. */
  stop(): Promise<void>;
  /** Settles when the bot has stopped: resolves after `stop()`, rejects on a fatal error. */
  readonly done: Promise<void>;
  /** The bot's own account; available after `start()`. */
  readonly me: BotIdentity;
  readonly registration: Registration | undefined;
  commands(): CommandInfo[];
}

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
  const api = options.client ?? createClient(options.server!);
  const log = options.logger ?? silentLogger();
  const prefix = options.prefix ?? "!";
  const respondTo = options.respondTo ?? "addressed";
  const errorReply = options.errorReply ?? DEFAULT_ERROR_REPLY;
  const router = new Router();
  const middleware: Middleware<MessageContext>[] = [];
  const bus = new EventEmitter();
  const events =
    options.events ??
    new EventQueue({
      client: api,
      logger: log.child({ component: "events" }),
      register: { fetch_event_types: ["realm", "realm_user"], ...options.register },
    });

  let me: BotIdentity | undefined;
  let pipeline: ((ctx: MessageContext) => Promise<void>) | undefined;
  let state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  let resolveDone!: () => void;
  let rejectDone!: (error: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  done.catch(() => undefined);

  const reportHandlerError = async (
    error: unknown,
    ctx: MessageContext,
    origin: { plugin: string },
  ) => {
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

  function scoped(plugin: string): PluginApi {
    const pluginLog = plugin === "bot" ? log : log.child({ plugin });
    return {
      name: plugin,
      log: pluginLog,
      api,
      command: (name, spec, handler) => router.command(plugin, name, spec, handler),
      hear: (pattern, handler) => router.hear(plugin, pattern, handler),
      filter: (filter, handler) => router.filter(plugin, filter, handler),
      use: (mw) => {
        if (pipeline)
          throw new Error(`plugin "${plugin}": use() must be called before the bot starts`);
        middleware.push(mw);
      },
      on: (type, listener) => {
        bus.on(type, (event: AnyEvent) => {
          Promise.resolve()
            .then(() => listener(event as EventOf<typeof type>))
            .catch((error: unknown) =>
              pluginLog.error(
                { err: error, eventType: type },
                `plugin "${plugin}" failed handling a ${type} event`,
              ),
            );
        });
      },
    };
  }

  const ignoreSelf: Middleware<MessageContext> = async (ctx, next) => {
    if (ctx.sender.userId !== ctx.me.userId) await next();
  };
  const gate: Middleware<MessageContext> = async (ctx, next) => {
    if (ctx.addressedVia !== null || respondTo === "all") await next();
  };

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
    const ctx = createMessageContext({
      message,
      flags,
      addressing: address(message.content, { isDirect, bot: me!, prefix }),
      me: me!,
      api,
      log: log.child({ messageId: message.id }),
    });
    await pipeline!(ctx);
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
    get me() {
      if (!me) throw new Error("bot.me is available after start()");
      return me;
    },
    get registration() {
      return events instanceof EventQueue ? events.registration : undefined;
    },
    commands: () => router.commands(),

    async start() {
      if (state !== "new") throw new Error(`bot cannot start: it is ${state}`);
      state = "starting";
      try {
        const own = await api.users.me();
        me = { userId: own.user_id, email: own.email, fullName: own.full_name };
        for (const entry of options.plugins ?? []) {
          const { plugin, settings } =
            "plugin" in entry ? entry : { plugin: entry, settings: undefined };
          const config = plugin.config ? plugin.config.parse(settings ?? {}) : settings;
          try {
            await plugin.setup(scoped(plugin.name), config);
          } catch (error) {
            throw new Error(
              `plugin "${plugin.name}" failed in setup: ${error instanceof Error ? error.message : String(error)}`,
              { cause: error },
            );
          }
        }
        pipeline = compose([
          ignoreSelf,
          gate,
          ...middleware,
          router.middleware(reportHandlerError),
        ]);
        if (events instanceof EventQueue) {
          events.onFatal = (error) => {
            log.error({ err: error }, "stopping: the server refused the bot");
            void stopWith(error);
          };
        }
        await events.start(onEvents);
        state = "running";
        if (options.handleSignals ?? true) {
          process.once("SIGINT", onSignal);
          process.once("SIGTERM", onSignal);
        }
        log.info({ bot: me.fullName, email: me.email, userId: me.userId }, "bot started");
      } catch (error) {
        state = "stopped";
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
      await events.stop();
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
