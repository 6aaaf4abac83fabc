// Loading a config's plugins afresh for `bot dev`: every load re-evaluates the plugin modules.
import { dirname, resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "../config/errors.js";
import { issueError } from "../config/load.js";
import { locatePlugin } from "../config/plugins.js";
import type { BotConfig } from "../config/schema.js";
import type { Plugin, PluginInstance } from "../runtime/plugin.js";

/** A loaded plugin and the file it came from (watched for changes when it is a path or built-in). */
export interface LoadedPlugin extends PluginInstance {
  file: string | undefined;
}

const isPlugin = (value: unknown): value is Plugin =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Plugin).name === "string" &&
  typeof (value as Plugin).setup === "function";

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
export async function loadPluginsFresh(
  config: BotConfig,
  file: string,
  version: number,
): Promise<LoadedPlugin[]> {
  const baseDir = dirname(resolvePath(file));
  const loaded: LoadedPlugin[] = [];
  for (const [index, entry] of config.plugins.entries()) {
    const [ref, settings] =
      typeof entry === "string" ? [entry, undefined] : Object.entries(entry)[0]!;
    const key = `plugins[${index}]`;
    const location = locatePlugin(ref, baseDir);
    if (!location) throw new ConfigError(file, key, `plugin "${ref}" not found`);
    const local = location.kind !== "package";
    let mod: Record<string, unknown>;
    try {
      mod = local
        ? await importFresh(location.target, version)
        : ((await import(location.target)) as Record<string, unknown>);
    } catch (error) {
      throw new ConfigError(
        file,
        key,
        `plugin "${ref}" could not be loaded: ${(error as Error).message}`,
      );
    }
    // A TypeScript file outside an ESM package comes back through CommonJS interop: default.default.
    const interop = (mod.default as Record<string, unknown> | undefined)?.default;
    const plugin = [mod.default, mod.plugin, interop].find(isPlugin);
    if (!plugin)
      throw new ConfigError(
        file,
        key,
        `"${ref}" does not export a plugin (a default export made with definePlugin)`,
      );
    let validated = settings;
    if (plugin.config) {
      const result = plugin.config.safeParse(settings ?? {});
      if (!result.success) {
        const error = issueError(result.error, settings ?? {}, file, ["plugins", index, ref]);
        throw new ConfigError(file, error.key, `plugin "${plugin.name}": ${error.problem}`);
      }
      validated = result.data;
    }
    loaded.push({ plugin, settings: validated, file: local ? location.target : undefined });
  }
  return loaded;
}
