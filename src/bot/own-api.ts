// The bot's own API (`bot.command(...)` outside any plugin): the plugin verbs under the name `bot`, its router registrations replayed into each new plugin set.
import { createPluginApi, type PluginApi, type PluginApiDeps } from "./plugin-api.js";
import type { PluginSet } from "./plugin-set.js";

/** The bot's own registration verbs, as PluginApi has them. */
export type OwnVerbs = Omit<PluginApi, "name" | "storage" | "me" | "commands">;

/** Verbs of the bot's own API that are not router registrations, so a reload does not replay them. */
const NOT_REPLAYED = new Set(["on", "cron", "webhook", "session", "log", "api", "users"]);

/**
 * The bot's own verbs. Router registrations (commands, listeners, middleware, and any verb
 * PluginApi gains) go into the active set and are pushed onto `replays`, which a reload runs
 * against the next set; listeners of events, cron jobs and routes are the bot's (`deps`) and stay
 * across reloads.
 *
 * @example
 * Object.assign(bot, ownVerbs(deps, () => active, replays));
 */
export function ownVerbs(
  deps: Omit<PluginApiDeps, "router" | "addMiddleware">,
  active: () => PluginSet,
  replays: ((api: PluginApi) => void)[],
): OwnVerbs {
  const full: PluginApiDeps = {
    ...deps,
    // Read at each registration: the active set's router.
    router: undefined as unknown as PluginApiDeps["router"],
    addMiddleware: (_name, mw) => active().api("bot").use(mw),
  };
  Object.defineProperty(full, "router", { get: () => active().router });
  const base = createPluginApi("bot", full);
  const verbs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(base)) {
    if (key === "name" || key === "storage" || key === "commands") continue;
    if (NOT_REPLAYED.has(key) || typeof value !== "function") {
      verbs[key] = value;
      continue;
    }
    verbs[key] = (...args: unknown[]) => {
      const verb = (api: PluginApi) =>
        (api[key as keyof PluginApi] as (...a: unknown[]) => unknown)(...args);
      const result = verb(active().api("bot"));
      replays.push(verb);
      return result;
    };
  }
  return verbs as unknown as OwnVerbs;
}
