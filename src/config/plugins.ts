// Resolving the plugins a config names: built-in by name, a relative path, or an npm package.
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin, PluginInstance } from "../runtime/plugin.js";
import type { BotConfig } from "./schema.js";
import { ConfigError } from "./errors.js";
import { issueError } from "./load.js";
import { importFile } from "./import-module.js";

export { importFile };

const keyPathOf = (index: number): PropertyKey[] => ["plugins", index];

/** Folder of the built-in plugins: `plugins/` beside `src/`, in the source tree and in `dist/` alike. */
const BUILTIN_DIR = fileURLToPath(new URL("../../plugins/", import.meta.url));
const EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];

function findModule(base: string): string | undefined {
  if (existsSync(base) && statSync(base).isFile()) return base;
  for (const ext of EXTENSIONS) if (existsSync(base + ext)) return base + ext;
  if (existsSync(base) && statSync(base).isDirectory()) {
    for (const ext of EXTENSIONS)
      if (existsSync(resolvePath(base, `index${ext}`))) return resolvePath(base, `index${ext}`);
  }
  return undefined;
}

const isPlugin = (value: unknown): value is Plugin =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Plugin).name === "string" &&
  typeof (value as Plugin).setup === "function";

/** Where a plugin reference points, and how it was found. */
export function locatePlugin(
  ref: string,
  baseDir: string,
): { kind: "builtin" | "path" | "package"; target: string } | undefined {
  if (ref.startsWith(".") || isAbsolute(ref)) {
    const found = findModule(resolvePath(baseDir, ref));
    return found ? { kind: "path", target: found } : undefined;
  }
  if (/^[a-z][a-z0-9-]*$/.test(ref)) {
    const builtin = findModule(resolvePath(BUILTIN_DIR, ref));
    if (builtin) return { kind: "builtin", target: builtin };
  }
  try {
    return {
      kind: "package",
      target: createRequire(resolvePath(baseDir, "bot.config.yaml")).resolve(ref),
    };
  } catch {
    return { kind: "package", target: ref };
  }
}

/** A loaded plugin; `file` is the module it came from when it is a path or built-in (not a package). */
export interface ResolvedPlugin extends PluginInstance {
  file: string | undefined;
}

export interface ResolveOptions {
  /** How a plugin file is imported; `bot dev` passes one that re-evaluates modules. Default `importFile`. */
  importModule?: (path: string) => Promise<Record<string, unknown>>;
}

/** Loads, in config order, every plugin the config names, with its settings validated. */
export async function resolvePlugins(
  config: BotConfig,
  file: string,
  options: ResolveOptions = {},
): Promise<ResolvedPlugin[]> {
  const importModule = options.importModule ?? importFile;
  const baseDir = dirname(resolvePath(file));
  const instances: ResolvedPlugin[] = [];
  for (const [index, entry] of config.plugins.entries()) {
    const [ref, settings] =
      typeof entry === "string" ? [entry, undefined] : Object.entries(entry)[0]!;
    const key = `plugins[${index}]`;
    const location = locatePlugin(ref, baseDir);
    if (!location)
      throw new ConfigError(
        file,
        key,
        `plugin "${ref}" not found (looked for ${resolvePath(baseDir, ref)})`,
      );
    let mod: Record<string, unknown>;
    try {
      const { kind, target } = location;
      mod =
        kind !== "package"
          ? await importModule(target)
          : isAbsolute(target)
            ? await importFile(target)
            : ((await import(target)) as Record<string, unknown>);
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
        const error = issueError(result.error, settings ?? {}, file, [...keyPathOf(index), ref]);
        throw new ConfigError(file, error.key, `plugin "${plugin.name}": ${error.problem}`, {
          plugin: plugin.name,
        });
      }
      validated = result.data;
    }
    instances.push({
      plugin,
      settings: validated,
      file: location.kind === "package" ? undefined : location.target,
    });
  }
  return instances;
}
