// Loading a config's plugins afresh for `bot dev`: every load re-evaluates the plugin modules.
import { importFresh } from "../config/import-module.js";
import { resolvePlugins, type ResolvedPlugin } from "../config/plugins.js";
import type { BotConfig } from "../config/schema.js";

/** A loaded plugin and the file it came from (watched for changes when it is a path or built-in). */
export type LoadedPlugin = ResolvedPlugin;

/** Loads every plugin the config names, with its settings validated, as `bot start` does, but fresh. */
export function loadPluginsFresh(
  config: BotConfig,
  file: string,
  version: number,
): Promise<LoadedPlugin[]> {
  return resolvePlugins(config, file, { importModule: (path) => importFresh(path, version) });
}
