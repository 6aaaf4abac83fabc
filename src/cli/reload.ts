// `bot start` on SIGHUP: the config file read again; plugins, their settings, schedules and the log level applied, the rest named as needing a restart.
import { isDeepStrictEqual } from "node:util";
import { loadConfigFile } from "../config/load.js";
import { resolvePlugins } from "../config/plugins.js";
import { importFresh } from "../config/import-module.js";
import type { BotConfig } from "../config/schema.js";
import type { Logger } from "../log/logger.js";
import type { Bot } from "../bot/bot.js";

/** The config keys a reload applies; every other key needs a restart. */
export const RELOADED_KEYS = ["plugins", "schedules", "logging.level"] as const;

/** The keys of `next` (top level, and `logging.format`) that differ from `current` and a reload does not apply. */
export function keysNeedingRestart(current: BotConfig, next: BotConfig): string[] {
  const keys = new Set([...Object.keys(current), ...Object.keys(next)]);
  const changed: string[] = [];
  for (const key of keys) {
    if (key === "plugins" || key === "schedules") continue;
    const before = (current as Record<string, unknown>)[key];
    const after = (next as Record<string, unknown>)[key];
    if (key === "logging") {
      const { level: _a, ...restBefore } = (before ?? {}) as Record<string, unknown>;
      const { level: _b, ...restAfter } = (after ?? {}) as Record<string, unknown>;
      for (const sub of new Set([...Object.keys(restBefore), ...Object.keys(restAfter)]))
        if (!isDeepStrictEqual(restBefore[sub], restAfter[sub])) changed.push(`logging.${sub}`);
      continue;
    }
    if (!isDeepStrictEqual(before, after)) changed.push(key);
  }
  return changed.sort();
}

/**
 * Reloads the bot from its config file, one reload at a time (a SIGHUP during one runs one more
 * after it). A config that does not load (invalid, a plugin not found or failing in setup) leaves
 * the running bot as it was, with an error naming the key and the file.
 *
 * @example
 * const reloader = configReloader(file, config, bot, log);
 * process.on("SIGHUP", () => void reloader.reload());
 */
export function configReloader(file: string, loaded: BotConfig, bot: Bot, log: Logger) {
  let current = loaded;
  let version = 0;
  let running: Promise<boolean> | undefined;
  let again = false;

  /** One reload; resolves true when the new config runs. */
  async function once(): Promise<boolean> {
    let next: BotConfig;
    try {
      next = await loadConfigFile(file);
      const plugins = await resolvePlugins(next, file, {
        // Plugin files (and the plugin files they import) are evaluated again: edited code runs.
        importModule: (path) => importFresh(path, ++version),
      });
      await bot.reload({
        plugins,
        schedules: next.schedules,
        logLevel: next.logging.level ?? process.env.LOG_LEVEL ?? "info",
      });
    } catch (error) {
      log.error(
        { err: error, config: file },
        `reload failed: ${error instanceof Error ? error.message : String(error)}; the bot keeps running with the configuration it had`,
      );
      return false;
    }
    const restart = keysNeedingRestart(current, next);
    if (restart.length > 0)
      log.warn(
        { config: file, keys: restart },
        `reload: ${restart.join(", ")} changed in ${file}; ${restart.length === 1 ? "it takes" : "they take"} effect on a restart (a reload applies ${RELOADED_KEYS.join(", ")})`,
      );
    current = next;
    log.info({ config: file, applied: RELOADED_KEYS }, "configuration reloaded");
    return true;
  }

  return {
    /** Reloads now, or once more after the reload in progress. */
    reload(): Promise<boolean> {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        let ok = await once();
        while (again) {
          again = false;
          ok = await once();
        }
        running = undefined;
        return ok;
      })();
      return running;
    },
  };
}
