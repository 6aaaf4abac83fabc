// Loading a config's plugins afresh for `bot dev`: every load re-evaluates the plugin modules.
import { pathToFileURL } from "node:url";
import { resolvePlugins, type ResolvedPlugin } from "../config/plugins.js";
import type { BotConfig } from "../config/schema.js";

/** A loaded plugin and the file it came from (watched for changes when it is a path or built-in). */
export type LoadedPlugin = ResolvedPlugin;

/**
 * Imports a module file so that it and what it imports are evaluated again: plain ESM through a
 * cache-busting query, TypeScript through tsx, whose every `tsImport` loads into a new namespace.
 */
export async function importFresh(path: string, version: number): Promise<Record<string, unknown>> {
  const url = `${pathToFileURL(path).href}?v=${version}`;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
    const { tsImport } = await import("tsx/esm/api");
    return (await tsImport(pathToFileURL(path).href, {
      parentURL: import.meta.url,
      tsconfig: false,
    })) as Record<string, unknown>;
  }
}

/** Loads every plugin the config names, with its settings validated, as `bot start` does, but fresh. */
export function loadPluginsFresh(
  config: BotConfig,
  file: string,
  version: number,
): Promise<LoadedPlugin[]> {
  return resolvePlugins(config, file, { importModule: (path) => importFresh(path, version) });
}
