// The API a plugin's setup gets: registration verbs, a logger and a storage namespace, all scoped to the plugin.
import type { EventEmitter } from "eventemitter3";
import type { ApiClient } from "../client/client.js";
import type { AnyEvent, EventOf } from "../api/events.js";
import type { Logger } from "../log/logger.js";
import type { KeyValueStore } from "../storage/store.js";
import type { Middleware } from "./compose.js";
import type { MessageContext } from "./context.js";
import type { CommandSpec } from "./commands/command.js";
import type { ArgsShape } from "./commands/types.js";
import type { CommandContext, Filter, Handler, NoArgs, Router } from "./router.js";
import { sessionKind, type SessionKind, type SessionKindOptions } from "./session.js";

export type EventListener<T extends string> = (event: EventOf<T>) => unknown;

/** What a plugin's `setup` gets: the registration verbs, scoped to the plugin. */
export interface PluginApi {
  /** The plugin's name. */
  readonly name: string;
  /** A child logger tagged with the plugin's name. */
  readonly log: Logger;
  /** The full typed client. */
  readonly api: ApiClient;
  /** The plugin's own key-value namespace in the bot's storage. */
  readonly storage: KeyValueStore;
  /**
   * A command with typed arguments.
   *
   * @example
   * bot.command("remind", {
   *   description: "Remind someone",
   *   args: { who: arg.user(), when: arg.time(), what: arg.rest() },
   * }, (ctx) => ctx.schedule(`@**${ctx.command.args.who.fullName}** ${ctx.command.args.what}`, ctx.command.args.when));
   */
  command<A extends ArgsShape = NoArgs, O extends ArgsShape = NoArgs>(
    name: string,
    spec: CommandSpec<A, O>,
    handler: Handler<CommandContext<A, O>>,
  ): void;
  hear(pattern: RegExp, handler: Handler<MessageContext & { match: RegExpExecArray }>): void;
  filter<C extends MessageContext>(filter: Filter<C>, handler: Handler<C>): void;
  use(middleware: Middleware<MessageContext>): void;
  on<T extends string>(type: T, listener: EventListener<T>): void;
  /**
   * Declares a typed session kind of this plugin, kept in storage per conversation (or per user).
   *
   * @example
   * const drafts = bot.session<{ title: string }>({ perUser: true, ttlMs: 3_600_000 });
   * bot.command("title", { args: { title: arg.rest() } }, (ctx) => drafts.of(ctx).set({ title: ctx.command.args.title }));
   */
  session<T>(options?: SessionKindOptions): SessionKind<T>;
}

export interface PluginApiDeps {
  api: ApiClient;
  log: Logger;
  router: Router;
  bus: EventEmitter;
  storage: KeyValueStore;
  /** Where sessions live: one namespace per plugin, apart from the plugin's own storage. */
  sessions: KeyValueStore;
  /** Adds a middleware; throws once the pipeline is built. */
  addMiddleware(plugin: string, middleware: Middleware<MessageContext>): void;
}

/** The PluginApi of `plugin`; `bot` is the name of the bot's own, top-level registrations. */
export function createPluginApi(plugin: string, deps: PluginApiDeps): PluginApi {
  const log = plugin === "bot" ? deps.log : deps.log.child({ plugin });
  return {
    name: plugin,
    log,
    api: deps.api,
    storage: deps.storage.namespace(plugin),
    command: (name, spec, handler) => deps.router.command(plugin, name, spec, handler),
    hear: (pattern, handler) => deps.router.hear(plugin, pattern, handler),
    filter: (filter, handler) => deps.router.filter(plugin, filter, handler),
    use: (mw) => deps.addMiddleware(plugin, mw),
    on: (type, listener) => {
      deps.bus.on(type, (event: AnyEvent) => {
        Promise.resolve()
          .then(() => listener(event as EventOf<typeof type>))
          .catch((error: unknown) =>
            log.error(
              { err: error, plugin, eventType: type, eventId: event.id },
              `plugin "${plugin}" failed handling a ${type} event`,
            ),
          );
      });
    },
    session: (options) => sessionKind(deps.sessions.namespace(plugin), options),
  };
}
