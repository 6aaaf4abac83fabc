// The bot's lifecycle: its state, start (identity, plugin setup, pipeline, loads, polling), stop (drain, flush), signals, fatal errors in words.
import type { EventEmitter } from "eventemitter3";
import type { ApiClient } from "../client/client.js";
import { ApiError } from "../client/errors.js";
import type { Registration } from "../api/events.js";
import type { EventSource } from "../inbound/event-queue.js";
import type { Logger } from "../log/logger.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import type { BotOptions } from "./options.js";
import type { createCommandRuntime } from "../dispatch/command-runtime.js";
import type { ContextServices, MessageContext } from "../context/context.js";
import type { Dialogs } from "../context/session.js";
import type { Follows } from "../context/follows.js";
import { saveOnStop, type Delivery } from "./delivery.js";
import type { Intake } from "../inbound/intake.js";
import { compose, type Middleware } from "../dispatch/compose.js";
import type { Dispatcher } from "../dispatch/dispatcher.js";
import { botAccount, type BotAccount } from "../model/account.js";
import { handledLogger, pluginErrorCatcher } from "../dispatch/handler-errors.js";
import type { MessageHandler } from "../dispatch/handling.js";
import type { HandlerWatch } from "../dispatch/handler-watch.js";
import type { HandlerErrorReporter, Router } from "../dispatch/router.js";
import { notify } from "../model/observer.js";
import type { PluginApi } from "./plugin-api.js";
import type { BotServices } from "./services.js";
import type { ServerFacts } from "../context/actions.js";
import type { Cards } from "../cards/index.js";

export type BotState = "new" | "starting" | "running" | "stopping" | "stopped";

/** The parts of one bot that start and stop move, as `createBot` assembled them. */
export interface BotParts {
  options: BotOptions;
  log: Logger;
  api: ApiClient;
  storage: KeyValueStore;
  bus: EventEmitter;
  events: EventSource;
  dispatcher: Dispatcher;
  router: Router;
  commands: ReturnType<typeof createCommandRuntime>;
  /** Plugins' middleware, in the order `use()` added it. */
  middleware: Middleware<MessageContext>[];
  delivery: Delivery;
  dialogs: Dialogs<MessageContext>;
  follows: Follows;
  intake: Intake;
  outside: BotServices;
  handler: MessageHandler;
  /** Cards, actions and approvals. */
  cards: Cards;
  reportHandlerError: HandlerErrorReporter;
  /** Time limits and quarantine. */
  watch: HandlerWatch;
  /** The plugin API scoped to one plugin. */
  scoped(plugin: string): PluginApi;
  server(): ServerFacts;
  prefix: string;
  now: () => number;
  /** The bot's time zone (resolved on first use: see `processTimeZone`). */
  timeZone: () => string;
}

/**
 * Starts and stops one bot, once each: `start()` from `new`, `stop()` from any state (twice is
 * safe), a fatal error from the event loop stops it too. `done` settles when it has stopped.
 */
export class BotLifecycle {
  state: BotState = "new";
  /** The bot's own account, once `start()` read it. */
  me: BotAccount | undefined;
  /** What the event source's first registration said (the queue's own when it has one). */
  firstRegistration: Registration | undefined;
  /** Settles when the bot has stopped: resolves after `stop()`, rejects on a fatal error. */
  readonly done: Promise<void>;
  readonly #parts: BotParts;
  #resolveDone!: () => void;
  #rejectDone!: (error: unknown) => void;

  constructor(parts: BotParts) {
    this.#parts = parts;
    this.done = new Promise<void>((resolve, reject) => {
      this.#resolveDone = resolve;
      this.#rejectDone = reject;
    });
    this.done.catch(() => undefined);
  }

  /** Resolves the bot's identity, runs plugin setup in order, registers the queue and starts polling. */
  async start(): Promise<void> {
    if (this.state !== "new") throw new Error(`bot cannot start: it is ${this.state}`);
    this.state = "starting";
    const p = this.#parts;
    const { options, api, log } = p;
    try {
      const own = options.ownProfile ?? (await api.users.me());
      const me = botAccount({ userId: own.user_id, email: own.email, fullName: own.full_name });
      this.me = me;
      const services = contextServices(p, me);
      await setUpPlugins(p);
      p.cards.approvals.register();
      p.commands.registerHelp(p.router, pluginDescriptions(options));
      const pipeline = compose([
        p.handler.admit,
        pluginErrorCatcher(p.reportHandlerError),
        ...p.middleware,
        p.router.middleware(p.reportHandlerError, handledLogger(log), p.watch.limits),
        p.commands.unknownCommand(p.router),
      ]);
      p.handler.ready(pipeline, services);
      p.cards.runtime.ready(services);
      await p.delivery.load();
      await p.watch.quarantine.load();
      await p.dialogs.load();
      await p.follows.load();
      await p.intake.baseline();
      await p.outside.start({
        me,
        context: services,
        pipeline,
        dialogs: p.dialogs,
        prefix: p.prefix,
      });
      options.attach?.({
        handle: p.handler.handleWhole,
        emit: (event) => p.bus.emit(event.type, event),
      });
      this.firstRegistration = await p.events.start(this.#sink(), {
        onRegistered: (_registration, { signal }) => p.intake.catchUp(signal),
        onFatal: (error) => {
          const fatal = describeFatal(error, api.site);
          log.error({ err: error }, `stopping: ${fatal.message}`);
          void this.#stopWith(fatal);
        },
      });
      this.state = "running";
      await p.cards.start();
      if (options.handleSignals ?? true) {
        process.once("SIGINT", this.#onSignal);
        process.once("SIGTERM", this.#onSignal);
      }
      log.info({ bot: me.fullName, email: me.email, userId: me.userId }, "bot started");
    } catch (error) {
      this.state = "stopped";
      await p.outside.stop();
      if (!options.client) await api.close();
      throw describeFatal(error, api.site);
    }
  }

  /** Stops polling, lets handlers finish (bounded), deletes the queue and closes connections. */
  stop(): Promise<void> {
    return this.#stopWith(undefined);
  }

  /** The intake's sink, counted by the services and shown to the observer. */
  #sink() {
    const p = this.#parts;
    const sink = p.outside.observe(p.intake.sink);
    const observed = p.options.observer?.event;
    if (!observed) return sink;
    return (received: Parameters<typeof sink>[0], signal: AbortSignal) => {
      for (const event of received) notify(observed, event);
      return sink(received, signal);
    };
  }

  readonly #onSignal = (signal: NodeJS.Signals): void => {
    this.#parts.log.info({ signal }, "stopping");
    void this.stop();
  };

  async #stopWith(error: unknown): Promise<void> {
    if (this.state === "stopping" || this.state === "stopped")
      return this.done.catch(() => undefined);
    this.state = "stopping";
    process.off("SIGINT", this.#onSignal);
    process.off("SIGTERM", this.#onSignal);
    const p = this.#parts;
    const { log, events, now } = p;
    try {
      await p.outside.stop();
      // 1. No more polling. 2. Let handlers finish (bounded). 3. Delete the queue. 4. Flush.
      await (events.halt ? events.halt() : events.stop());
      // Messages an overlap strategy still holds for a later call are left for the next start.
      p.router.overlap.close();
      const stopTimeoutMs = p.options.stopTimeoutMs ?? 10_000;
      const deadline = now() + stopTimeoutMs;
      let drained = await within(p.dispatcher.whenIdle(), stopTimeoutMs);
      // Open questions end unanswered, so the handlers waiting on them can finish.
      p.dialogs.cancelAll();
      p.cards.stop();
      if (drained)
        drained = await within(p.handler.inflight.whenNone(), Math.max(0, deadline - now()));
      if (!drained)
        log.warn(
          { running: p.delivery.ledger.running, stopTimeoutMs },
          "handlers still running at the stop timeout; stopping anyway (their messages are caught up on the next start)",
        );
      if (events.halt) await events.stop();
      // Handlers cut short by the stop count towards quarantine: their messages come again.
      if (!drained) await p.watch.countCutShort();
      error ??= await saveOnStop(p.delivery, p.storage, log);
    } finally {
      if (!p.options.client) await p.api.close();
      this.state = "stopped";
      log.info("bot stopped");
      log.flush();
      if (error === undefined) this.#resolveDone();
      else this.#rejectDone(error);
    }
  }
}

/**
 * What every message's context shares, once the bot knows who it is. `timeZone` is an accessor
 * added once the object is built, not a getter in the literal: V8 makes an object literal with a
 * getter in dictionary mode, where each read from optimized code is a generic lookup, and every
 * context reads these.
 */
export function contextServices(p: BotParts, me: BotAccount): ContextServices {
  const services: Omit<ContextServices, "timeZone"> = {
    api: p.api,
    me,
    log: p.log,
    sendMessage: p.delivery.outbox.send,
    server: p.server,
    sessions: p.storage.namespace("topicbot:sessions"),
    dialogs: p.dialogs,
    follows: p.follows,
    now: p.now,
    guard: p.delivery.replies.guard,
    firstReply: p.outside.firstReply,
    cards: p.cards.service,
  };
  return Object.defineProperty(services, "timeZone", {
    get: () => p.timeZone(),
    enumerable: true,
  }) as ContextServices;
}

/** Each plugin's `setup`, in order, with its settings checked against its config schema. */
async function setUpPlugins(p: BotParts): Promise<void> {
  for (const entry of p.options.plugins ?? []) {
    const { plugin, settings } = "plugin" in entry ? entry : { plugin: entry, settings: undefined };
    try {
      p.router.pluginOverlap(plugin.name, plugin.overlap);
      const config = plugin.config ? plugin.config.parse(settings ?? {}) : settings;
      await plugin.setup(p.scoped(plugin.name), config);
    } catch (error) {
      throw new Error(
        `plugin "${plugin.name}" failed in setup: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
}

/** Each plugin's description by name, for `help`. */
function pluginDescriptions(options: BotOptions): Map<string, string | undefined> {
  const about = new Map<string, string | undefined>();
  for (const entry of options.plugins ?? []) {
    const plugin = "plugin" in entry ? entry.plugin : entry;
    about.set(plugin.name, plugin.description);
  }
  return about;
}

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
