// The API a plugin's setup gets: registration verbs, a logger and a storage namespace, all scoped to the plugin.
import type { EventEmitter } from "eventemitter3";
import type { ApiClient } from "../client/client.js";
import type { AnyEvent, EventOf, ServerEventType } from "../api/events.js";
import type { Logger } from "../log/logger.js";
import type { CronJob, ScheduleOptions, ScheduledJob } from "../scheduler/scheduler.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import type { RouteOptions, WebhookHandler } from "../webhooks/receiver.js";
import type { Middleware } from "../dispatch/compose.js";
import type { MessageContext } from "../context/context.js";
import type { UserLookup } from "../context/directory.js";
import {
  runSubcommand,
  type CommandInfo,
  type CommandSpec,
  type Subcommand,
} from "../commands/command.js";
import type { ArgsShape } from "../commands/types.js";
import type {
  CommandContext,
  Filter,
  Handler,
  ListenerOptions,
  NoArgs,
  Router,
} from "../dispatch/router.js";
import type { BotAccount } from "../model/account.js";
import { sessionKind, type SessionKind, type SessionKindOptions } from "../context/session.js";
import type { ActionContext, ActionSpec } from "../cards/actions.js";

export type EventListener<T extends ServerEventType> = (event: EventOf<T>) => unknown;

/** Options of `bot.cron`. */
export interface CronOptions {
  /** Shown in logs and metrics; default `<plugin>: <expression>`. Names are unique per bot. */
  name?: string;
  /** IANA time zone the expression is read in, e.g. `Europe/Paris`; default the machine's. */
  timeZone?: string;
}

/** What plugins' cron jobs and webhook routes are registered with (src/bot/services.ts). */
export interface PluginServices {
  cron(
    expression: string,
    job: CronJob,
    /** `name` when given is unique; `defaultName` gets a ` #2` suffix when already taken. */
    options: ScheduleOptions & { defaultName: string; logger: Logger },
  ): ScheduledJob;
  webhook(plugin: string, path: string, options: RouteOptions, handler: WebhookHandler): void;
}

/** What a plugin's `setup` gets: the registration verbs, scoped to the plugin. */
export interface PluginApi {
  /** The plugin's name. */
  readonly name: string;
  /** A child logger tagged with the plugin's name. */
  readonly log: Logger;
  /** The full typed client. */
  readonly api: ApiClient;
  /**
   * The plugin's own key-value namespace in the bot's storage: keys of other plugins are not
   * visible here, and the same key in two plugins is two values.
   */
  readonly storage: KeyValueStore;
  /**
   * One namespace every plugin sees alike, for plugins that mean to share data (agree on key
   * names). Kept in the bot's storage apart from every plugin's own namespace.
   *
   * @example
   * await bot.sharedStorage.set("oncall", "olivia@example.com");
   */
  readonly sharedStorage: KeyValueStore;
  /**
   * The bot's own account, known once the bot has started (setup runs then): user ID, email,
   * name and its mention strings (`@**Name**`, silent `@_**Name**`). No API call.
   *
   * @example
   * bot.hear(/hello/i, (ctx) => ctx.reply(`I am ${bot.me.mention}`));
   */
  readonly me: BotAccount;
  /**
   * The server's users as the bot knows them: fetched by ID or email as needed, cached and kept
   * current by events (what `arg.user()` resolves with). Never lists the whole organization.
   *
   * @example
   * const who = await bot.users.byMention("Mia Member"); // ChatUser | undefined
   */
  readonly users: UserLookup;
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
    spec: CommandSpec<A, O> & { subcommands?: undefined },
    handler: Handler<CommandContext<A, O>>,
  ): void;
  /**
   * A command with subcommands (`!todo add <item>`, `!todo list`), each made with
   * `subcommand(spec, handler)`; `help` lists them, a wrong one gets "did you mean".
   */
  command(
    name: string,
    spec: Omit<CommandSpec, "args"> & { subcommands: Record<string, Subcommand> },
  ): void;
  /**
   * A listener: runs when `pattern` matches the addressed text (`ctx.match` holds the match).
   * Listeners run after every command and before the built-in `help` (see `options`).
   *
   * @example
   * bot.hear(/.+/, (ctx) => ctx.reply(`You said: ${ctx.text}`), { shadowsHelp: false });
   */
  hear(
    pattern: RegExp,
    handler: Handler<MessageContext & { match: RegExpExecArray }>,
    options?: ListenerOptions,
  ): void;
  /**
   * A handler for every message of the conversations this plugin follows (`ctx.follow()`),
   * addressed or not; commands still come first.
   *
   * @example
   * bot.command("listen", {}, (ctx) => ctx.follow({ idleMinutes: 30 }));
   * bot.followed((ctx) => ctx.react("eyes"));
   */
  followed(handler: Handler, options?: ListenerOptions): void;
  /** A listener on any predicate (a type guard narrows `ctx`); ordered like `hear`. */
  filter<C extends MessageContext>(
    filter: Filter<C>,
    handler: Handler<C>,
    options?: ListenerOptions,
  ): void;
  /**
   * Every command registered so far, by every plugin (the built-in `help`, as plugin `builtin`,
   * once the bot starts): name, plugin, description, aliases, examples, roles and usage line.
   * Call it in a handler to see them all.
   *
   * @example
   * bot.command("commands", { description: "Names every command" }, (ctx) =>
   *   ctx.reply(bot.commands().map((c) => `\`${c.name}\``).join(", ")));
   */
  commands(): CommandInfo[];
  /**
   * An action: what a card's choice runs when clicked, by the zform button (web), the same text
   * typed (`!approve k3f9x2`), a reaction chip, or a poll vote. Arguments are typed as a
   * command's; the card's token, expiry, single use and `allow` are checked before the handler.
   * `ctx.actor` is who clicked, `ctx.action` the card and choice. See docs/cards.md.
   *
   * @example
   * bot.action("deploy", { args: { version: arg.string() } }, async (ctx) => {
   *   await ctx.reply(`Deploying ${ctx.action.args.version} for ${ctx.actor.fullName}`);
   * });
   */
  action<A extends ArgsShape = NoArgs, O extends ArgsShape = NoArgs>(
    name: string,
    spec: ActionSpec<A, O>,
    handler: Handler<ActionContext<A, O>>,
  ): void;
  use(middleware: Middleware<MessageContext>): void;
  on<T extends ServerEventType>(type: T, listener: EventListener<T>): void;
  /**
   * Declares a typed session kind of this plugin, kept in storage per conversation (or per user).
   *
   * @example
   * const drafts = bot.session<{ title: string }>({ perUser: true, ttlMs: 3_600_000 });
   * bot.command("title", { args: { title: arg.rest() } }, (ctx) => drafts.of(ctx).set({ title: ctx.command.args.title }));
   */
  session<T>(options?: SessionKindOptions): SessionKind<T>;
  /**
   * Runs `job` on a cron expression (5 fields, or 6 with seconds first). A run never overlaps the
   * previous one, a failing run is logged with the job's name, and jobs stop with the bot.
   *
   * @example
   * bot.cron("0 9 * * 1-5", () =>
   *   bot.api.messages.send({ type: "channel", to: "general", topic: "standup", content: "Stand-up!" }),
   * { name: "standup", timeZone: "Europe/Paris" });
   */
  cron(expression: string, job: CronJob, options?: CronOptions): ScheduledJob;
  /**
   * Declares a POST route on the bot's webhook receiver (started when any route exists). The
   * handler gets the parsed JSON body; what it returns is the answer (200 `{"ok":true}` for
   * nothing). Without options the route is unauthenticated: give `auth` unless something else checks.
   *
   * @example
   * bot.webhook("/hooks/deploy", { auth: { type: "token", token: config.token } }, async ({ payload }) => {
   *   const { service, version } = payload as { service: string; version: string };
   *   await bot.api.messages.send({ type: "channel", to: "deploys", topic: service, content: `Deployed **${version}**` });
   * });
   */
  webhook(path: string, options: RouteOptions, handler: WebhookHandler): void;
  webhook(path: string, handler: WebhookHandler): void;
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
  /** Cron jobs and webhook routes. */
  services: PluginServices;
  /** The bot's account; throws before the bot starts. */
  me(): BotAccount;
  /** The bot's directory of users. */
  users: UserLookup;
  /** Where `bot.action` registers (into the plugin set being set up). */
  cards: ActionRegistry;
}

/** Takes a plugin's actions (`bot.action`): the cards runtime, for one plugin set's router. */
export interface ActionRegistry {
  action(plugin: string, name: string, spec: ActionSpec, handler: Handler<ActionContext>): void;
}

/** The storage namespace every plugin shares (`bot.sharedStorage`). */
export const SHARED_NAMESPACE = "topicbot:shared";

/** The PluginApi of `plugin`; `bot` is the name of the bot's own, top-level registrations. */
export function createPluginApi(plugin: string, deps: PluginApiDeps): PluginApi {
  const log = plugin === "bot" ? deps.log : deps.log.child({ plugin });
  const pluginApi: Omit<PluginApi, "me"> = {
    name: plugin,
    log,
    api: deps.api,
    users: deps.users,
    storage: deps.storage.namespace(plugin),
    sharedStorage: deps.storage.namespace(SHARED_NAMESPACE),
    command: (name: string, spec: CommandSpec, handler?: Handler<CommandContext>) =>
      deps.router.command(plugin, name, spec, handler ?? (runSubcommand(spec) as Handler)),
    hear: (pattern, handler, options) => deps.router.hear(plugin, pattern, handler, options),
    filter: (filter, handler, options) => deps.router.filter(plugin, filter, handler, options),
    followed: (handler, options) => deps.router.followed(plugin, handler, options),
    commands: () => deps.router.commands(),
    action: (name, spec, handler) =>
      deps.cards.action(plugin, name, spec as ActionSpec, handler as Handler<ActionContext>),
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
    cron: (expression, job, options = {}) =>
      deps.services.cron(expression, job, {
        ...(options.name !== undefined && { name: options.name }),
        timezone: options.timeZone,
        defaultName: `${plugin}: ${expression}`,
        logger: log,
      }),
    webhook(path: string, ...rest: [RouteOptions, WebhookHandler] | [WebhookHandler]) {
      const [options, handler] = rest.length === 2 ? rest : [{ auth: { type: "none" } }, rest[0]];
      deps.services.webhook(plugin, path, options as RouteOptions, handler);
    },
  };
  // Not enumerable, so spreading the API (as createBot does) does not read it before start.
  return Object.defineProperty(pluginApi, "me", { get: deps.me, enumerable: false }) as PluginApi;
}
