// One set of plugins set up together: its router, middleware, event listeners, cron jobs and webhook routes, built whole beside the running set (a reload) and swapped in or torn down whole.
import { EventEmitter } from "eventemitter3";
import type { ApiClient } from "../client/client.js";
import type { Logger } from "../log/logger.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import type { Middleware } from "../dispatch/compose.js";
import type { MessageContext } from "../context/context.js";
import type { UserLookup } from "../context/directory.js";
import { Router, type CommandGuard } from "../dispatch/router.js";
import type { OverlapRoom } from "../dispatch/overlap-lanes.js";
import type { BotAccount } from "../model/account.js";
import { compileCron } from "../scheduler/cron.js";
import type { CronJob, ScheduleOptions, ScheduledJob } from "../scheduler/scheduler.js";
import { checkRoutePath, type RouteOptions, type WebhookHandler } from "../webhooks/receiver.js";
import type { CardRuntime } from "../cards/runtime.js";
import { createPluginApi, type PluginApi } from "./plugin-api.js";
import type { Plugin, PluginInstance } from "./plugin.js";

/** Where a set's cron jobs and webhook routes go once it is swapped in (src/bot/services.ts). */
export interface PluginSetOutlets {
  schedule(expression: string, job: CronJob, options: ScheduleOptions): ScheduledJob;
  /** Names of the cron jobs scheduled now. */
  jobNames(): string[];
  mountRoute(plugin: string, path: string, options: RouteOptions, handler: WebhookHandler): void;
  unmountRoute(path: string): void;
  /** Paths of every webhook route declared now. */
  routePaths(): string[];
}

export interface PluginSetDeps {
  api: ApiClient;
  log: Logger;
  storage: KeyValueStore;
  /** Where sessions live: one namespace per plugin. */
  sessions: KeyValueStore;
  users: UserLookup;
  /** The bot's account, once started. */
  me(): BotAccount | undefined;
  /** The command guard (rate limit, roles, arguments) every set's router asks. */
  guard: CommandGuard;
  /** What handlers with an overlap strategy share, across sets. */
  overlap: OverlapRoom;
  outlets: PluginSetOutlets;
  /** The cards runtime: the set's actions (`bot.action`) become commands of its router. */
  cards: CardRuntime;
  /** The set this one is built to replace (a reload): its job names and route paths pass over. */
  previous?: PluginSet;
}

interface PendingRoute {
  plugin: string;
  path: string;
  options: RouteOptions;
  handler: WebhookHandler;
}

/**
 * The registrations of one set of plugins. `setUp` runs their setups into it; nothing of it acts
 * until `activate` (its cron jobs scheduled, its routes mounted; its router and listeners are the
 * bot's from then on); `close` takes it all back. A set that failed to set up is closed unseen.
 */
export class PluginSet {
  readonly router: Router;
  /** Plugins' listeners of server events (`bot.on`); the bot's bus relays to the active set's. */
  readonly events = new EventEmitter();
  readonly #deps: PluginSetDeps;
  readonly #middleware: Middleware<MessageContext>[] = [];
  readonly #jobs: DeferredJob[] = [];
  readonly #routes: PendingRoute[] = [];
  #state: "setup" | "active" | "closed" = "setup";
  #botApi: PluginApi | undefined;

  constructor(deps: PluginSetDeps) {
    this.#deps = deps;
    this.router = new Router({ guard: deps.guard, overlap: deps.overlap });
  }

  /** Plugins' middleware, in the order `use()` added it. */
  get middleware(): readonly Middleware<MessageContext>[] {
    return this.#middleware;
  }

  /** Cron jobs registered (the names they run under). */
  get jobs(): readonly ScheduledJob[] {
    return this.#jobs;
  }

  /** The API `plugin`'s setup gets: what it registers goes into this set. */
  api(plugin: string): PluginApi {
    if (plugin === "bot") return (this.#botApi ??= this.#api(plugin));
    return this.#api(plugin);
  }

  #api(plugin: string): PluginApi {
    const d = this.#deps;
    return createPluginApi(plugin, {
      api: d.api,
      log: d.log,
      router: this.router,
      bus: this.events,
      storage: d.storage,
      sessions: d.sessions,
      users: d.users,
      cards: {
        action: (name, action, spec, handler) =>
          d.cards.action(name, action, spec, handler, this.router),
      },
      me: () => {
        const me = d.me();
        if (!me) throw new Error(`plugin "${plugin}": bot.me is available once the bot starts`);
        return me;
      },
      addMiddleware: (name, mw) => {
        if (this.#state !== "setup")
          throw new Error(`plugin "${name}": use() must be called before the bot starts`);
        this.#middleware.push(mw);
      },
      services: {
        cron: (expression, job, options) => this.#cron(expression, job, options),
        webhook: (name, path, options, handler) => {
          if (this.#state !== "setup")
            throw new Error(`plugin "${name}": webhook() must be called during setup`);
          this.#route({ plugin: name, path, options, handler });
        },
      },
    });
  }

  /** Each plugin's `setup`, in order, with its settings checked against its config schema. */
  async setUp(plugins: readonly (Plugin | PluginInstance)[]): Promise<void> {
    for (const entry of plugins) {
      const { plugin, settings } =
        "plugin" in entry ? entry : { plugin: entry, settings: undefined };
      try {
        this.router.pluginOverlap(plugin.name, plugin.overlap);
        const config = plugin.config ? plugin.config.parse(settings ?? {}) : settings;
        await plugin.setup(this.api(plugin.name), config);
      } catch (error) {
        throw new Error(
          `plugin "${plugin.name}" failed in setup: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
    }
  }

  /**
   * Puts the set to work in place of `previous` (closed first, so names and paths pass over):
   * its cron jobs start and its routes are mounted. Synchronous: no message sees neither set.
   */
  activate(previous: PluginSet | undefined): void {
    if (this.#state !== "setup")
      throw new Error(`a plugin set cannot be activated: it is ${this.#state}`);
    previous?.close();
    this.#state = "active";
    const { outlets } = this.#deps;
    for (const route of this.#routes)
      outlets.mountRoute(route.plugin, route.path, route.options, route.handler);
    for (const job of this.#jobs) job.start(outlets);
  }

  /** Takes the set's listeners, cron jobs and routes back (running jobs finish on their own). */
  close(): void {
    if (this.#state === "closed") return;
    const wasActive = this.#state === "active";
    this.#state = "closed";
    this.events.removeAllListeners();
    for (const job of this.#jobs) job.cancel();
    if (wasActive) for (const route of this.#routes) this.#deps.outlets.unmountRoute(route.path);
  }

  /** A cron job, named uniquely among the jobs that stay (the replaced set's pass over). */
  #cron(
    expression: string,
    job: CronJob,
    options: ScheduleOptions & { defaultName: string; logger: Logger },
  ): ScheduledJob {
    const { defaultName, ...rest } = options;
    const taken = new Set([
      ...this.#deps.outlets.jobNames().filter((n) => !this.#passesOver("job", n)),
      ...this.#jobs.map((j) => j.name),
    ]);
    let name = rest.name ?? defaultName;
    if (rest.name !== undefined && taken.has(name))
      throw new Error(`cron job "${name}": a job with this name is already scheduled`);
    for (let n = 2; rest.name === undefined && taken.has(name); n++) name = `${defaultName} #${n}`;
    // Checked now, so that a bad expression fails the setup that gave it.
    compileCron(expression, { timezone: rest.timezone, job: name });
    const deferred = new DeferredJob(name, expression, rest.timezone, job, { ...rest, name });
    this.#jobs.push(deferred);
    if (this.#state === "active") deferred.start(this.#deps.outlets);
    return deferred;
  }

  #route(route: PendingRoute): void {
    checkRoutePath(route.path);
    const declared = this.#deps.outlets
      .routePaths()
      .filter((p) => !this.#passesOver("route", p))
      .concat(this.#routes.map((r) => r.path));
    if (declared.includes(route.path))
      throw new Error(`plugin "${route.plugin}": webhook route "${route.path}": declared twice`);
    this.#routes.push(route);
  }

  /** Whether a job or route of that name belongs to the set this one will replace. */
  #passesOver(kind: "job" | "route", name: string): boolean {
    return this.#deps.previous?.owns(kind, name) ?? false;
  }

  /** Whether this set registered the cron job or the webhook route `name`. */
  owns(kind: "job" | "route", name: string): boolean {
    return kind === "job"
      ? this.#jobs.some((j) => j.name === name)
      : this.#routes.some((r) => r.path === name);
  }
}

/** A cron job registered during setup, scheduled when its set is activated. */
class DeferredJob implements ScheduledJob {
  #job: ScheduledJob | undefined;
  #cancelled = false;

  constructor(
    readonly name: string,
    readonly expression: string,
    readonly timezone: string | undefined,
    readonly fn: CronJob,
    readonly options: ScheduleOptions,
  ) {}

  start(outlets: PluginSetOutlets): void {
    if (this.#cancelled || this.#job) return;
    this.#job = outlets.schedule(this.expression, this.fn, this.options);
  }

  nextRun(): Date | undefined {
    return this.#job?.nextRun();
  }

  get running(): boolean {
    return this.#job?.running ?? false;
  }

  get runs(): number {
    return this.#job?.runs ?? 0;
  }

  get skipped(): number {
    return this.#job?.skipped ?? 0;
  }

  cancel(): void {
    this.#cancelled = true;
    this.#job?.cancel();
  }
}

/**
 * The bot's bus: the bot's own listeners (the directory's, `bot.on` outside any plugin), and every
 * event relayed to the listeners of the active plugin set.
 */
export class EventRelay extends EventEmitter {
  /** The active set's listeners. */
  target: EventEmitter | undefined;

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    const own = super.emit(event, ...args);
    const relayed = this.target?.emit(event, ...args) ?? false;
    return own || relayed;
  }
}

/** Each plugin's description by name, for `help`. */
export function pluginDescriptions(
  plugins: readonly (Plugin | PluginInstance)[],
): Map<string, string | undefined> {
  const about = new Map<string, string | undefined>();
  for (const entry of plugins) {
    const plugin = "plugin" in entry ? entry.plugin : entry;
    about.set(plugin.name, plugin.description);
  }
  return about;
}
