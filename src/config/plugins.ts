// Resolving the plugins a config names: built-in by name, a relative path, or an npm package.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, isAbsolute, resolve as resolvePath } from "node:path";
import { PLUGIN_NAME_RULE, type Plugin, type PluginInstance } from "../bot/plugin.js";
import type { BotConfig } from "./schema.js";
import { LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { allConfigErrors, ConfigError, didYouMean } from "./errors.js";
import { issueError, yamlLocator, type Locate } from "./load.js";
import { importFile } from "./import-module.js";
import { ownPath, runsBuilt } from "../own-files.js";

export { importFile };

const keyPathOf = (index: number): PropertyKey[] => ["plugins", index];

/** Folder of the built-in plugins: `plugins/` in the source tree, `dist/plugins/` in the build. */
const BUILTIN_DIR = ownPath(runsBuilt() ? "dist/plugins" : "plugins");
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
  if (PLUGIN_NAME_RULE.test(ref)) {
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

/** The names of the built-in plugins. */
export function builtinPluginNames(): string[] {
  try {
    return readdirSync(BUILTIN_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Settings written under a plugin's name: anything but nothing (`- ping:` alone, or `{}`). */
const hasSettings = (settings: unknown): boolean =>
  settings !== undefined &&
  settings !== null &&
  !(typeof settings === "object" && !Array.isArray(settings) && Object.keys(settings).length === 0);

/** The keys of a settings map (or the value itself), for an error message. */
const describeSettings = (settings: unknown): string =>
  typeof settings === "object" && settings !== null && !Array.isArray(settings)
    ? Object.keys(settings)
        .map((key) => JSON.stringify(key))
        .join(", ")
    : JSON.stringify(settings);

/** A plugin's settings schema, strict like the top-level keys unless its author chose otherwise. */
function strictSettings(schema: z.ZodType): z.ZodType {
  const def = (schema as unknown as { _zod: { def: { type: string; catchall?: unknown } } })._zod
    .def;
  return def.type === "object" && def.catchall === undefined
    ? (schema as unknown as z.ZodObject).strict()
    : schema;
}

/** Where in the config file a key path is, for plugin errors (the file is read again). */
function fileLocator(file: string): Locate | undefined {
  try {
    const lines = new LineCounter();
    return yamlLocator(parseDocument(readFileSync(file, "utf8"), { lineCounter: lines }), lines);
  } catch {
    return undefined;
  }
}

/**
 * Loads, in config order, every plugin the config names, with its settings validated. Every
 * problem (a plugin not found, not loadable, or with bad settings) is reported at once.
 */
export async function resolvePlugins(
  config: BotConfig,
  file: string,
  options: ResolveOptions = {},
): Promise<ResolvedPlugin[]> {
  const importModule = options.importModule ?? importFile;
  const baseDir = dirname(resolvePath(file));
  const instances: ResolvedPlugin[] = [];
  const errors: ConfigError[] = [];
  let locator: Locate | undefined | null = null;
  const locate: Locate = (path, key) => {
    if (locator === null) locator = fileLocator(file);
    return locator?.(path, key);
  };
  for (const [index, entry] of config.plugins.entries()) {
    const [ref, settings] =
      typeof entry === "string" ? [entry, undefined] : Object.entries(entry)[0]!;
    const key = `plugins[${index}]`;
    const fail = (problem: string): void => {
      errors.push(new ConfigError(file, key, problem, { position: locate(keyPathOf(index)) }));
    };
    const location = locatePlugin(ref, baseDir);
    if (!location) {
      fail(`plugin "${ref}" not found (looked for ${resolvePath(baseDir, ref)})`);
      continue;
    }
    if (location.kind === "package" && !isAbsolute(location.target)) {
      const builtins = builtinPluginNames();
      fail(
        `plugin "${ref}" not found: no built-in plugin by that name${didYouMean(ref, builtins)} and no installed package (built-ins: ${builtins.join(", ")})`,
      );
      continue;
    }
    let mod: Record<string, unknown>;
    try {
      mod =
        location.kind !== "package"
          ? await importModule(location.target)
          : await importFile(location.target);
    } catch (error) {
      fail(`plugin "${ref}" could not be loaded: ${(error as Error).message}`);
      continue;
    }
    // A TypeScript file outside an ESM package comes back through CommonJS interop: default.default.
    const interop = (mod.default as Record<string, unknown> | undefined)?.default;
    const plugin = [mod.default, mod.plugin, interop].find(isPlugin);
    if (!plugin) {
      fail(`"${ref}" does not export a plugin (a default export made with definePlugin)`);
      continue;
    }
    let validated = settings;
    if (plugin.config) {
      const schema = strictSettings(plugin.config);
      const result = schema.safeParse(settings ?? {});
      if (!result.success) {
        errors.push(
          ...issueError(result.error, settings ?? {}, file, [...keyPathOf(index), ref], [], {
            locate,
            schema,
            label: `plugin "${plugin.name}": `,
            plugin: plugin.name,
          }).problems,
        );
        continue;
      }
      validated = result.data;
    } else if (hasSettings(settings)) {
      // Without a schema nothing would read them: a misplaced or misspelt block, said so.
      fail(
        `plugin "${plugin.name}" takes no settings (it declares no config schema), but got ${describeSettings(settings)}`,
      );
      continue;
    }
    instances.push({
      plugin,
      settings: validated,
      file: location.kind === "package" ? undefined : location.target,
    });
  }
  if (errors.length > 0) throw allConfigErrors(errors);
  return instances;
}
