// Importing plugin modules into the CLI's one module graph: TypeScript through tsx's process-wide hooks, fresh copies for `bot dev`.
import { createRequire, register as registerHooks } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ownPath } from "../own-files.js";

/** The query parameter that marks a module (and the plugin files it imports) as one `bot dev` load. */
const RELOAD_PARAM = "topicbot-reload";

/** Node errors that mean "this runtime cannot load that TypeScript file by itself". */
const NEEDS_TSX = new Set([
  "ERR_UNKNOWN_FILE_EXTENSION",
  "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING",
  "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX",
  "ERR_INVALID_TYPESCRIPT_SYNTAX",
]);

let typescript: Promise<void> | undefined;

/**
 * Registers tsx's ESM and CommonJS hooks once for the whole process (not a namespaced `tsImport`, which loads
 * a second copy of every module it reaches, topicbot included, so `arg.*` markers and
 * `instanceof ApiError` would stop matching). tsconfig paths are ignored so that "topicbot"
 * resolves to the installed package, as at run time.
 */
function enableTypeScript(): Promise<void> {
  typescript ??= Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]).then(([esm, cjs]) => {
    esm.register({ tsconfig: false });
    // A .ts file outside an ESM package is CommonJS, loaded through require's hooks.
    const nativeJs = requireHandlers()[".js"]!;
    cjs.register();
    keepOwnCodeNative(nativeJs);
  });
  return typescript;
}

type RequireHandler = (this: unknown, module: unknown, filename: string) => void;

/** Node's table of how `require` loads each file extension (what tsx's CommonJS hooks replace). */
const requireHandlers = (): Record<string, RequireHandler> =>
  (createRequire(import.meta.url)("node:module") as { _extensions: Record<string, RequireHandler> })
    ._extensions;

/**
 * tsx's CommonJS hook compiles every ES-module `.js` file a CommonJS plugin requires into a
 * CommonJS copy, topicbot's own included: a plugin in a `"type": "commonjs"` project (what
 * `npm init -y` writes) got a second topicbot, whose `arg.*` markers and classes the running
 * one does not recognise. topicbot's files go to Node's own loader instead, whose require of an
 * ES module returns the instance already loaded.
 */
function keepOwnCodeNative(nativeJs: RequireHandler): void {
  const handlers = requireHandlers();
  const tsxJs = handlers[".js"]!;
  const ownDirs = OWN_CODE.map((prefix) => fileURLToPath(prefix));
  handlers[".js"] = function (this: unknown, module: unknown, filename: string): void {
    if (!ownDirs.some((dir) => filename.startsWith(dir))) return tsxJs.call(this, module, filename);
    try {
      return nativeJs.call(this, module, filename);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ERR_REQUIRE_ESM") throw error;
      throw new Error(
        `a CommonJS plugin requires topicbot, an ES module, which needs Node.js 20.19 or later to require it: upgrade Node.js, or make the plugin an ES module ("type": "module" in its package.json, or the .mts / .mjs extension)`,
      );
    }
  };
}

/** topicbot's own code as file URL prefixes: its sources and its build (bundle chunks, built-in plugins). */
const OWN_CODE = [pathToFileURL(ownPath("src/")).href, pathToFileURL(ownPath("dist/")).href];

/**
 * A resolve hook, passed to Node as source: a module imported by one that carries the reload
 * parameter gets it too, unless it is topicbot itself or in node_modules, so a reload evaluates
 * the plugin's own files again and shares everything else.
 */
const RELOAD_HOOK = `
let ownCode = [];
export function initialize(data) { ownCode = data.ownCode; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const parent = context.parentURL;
  if (!parent || !parent.startsWith("file:") || !result.url.startsWith("file:")) return result;
  const version = new URL(parent).searchParams.get(${JSON.stringify(RELOAD_PARAM)});
  if (version === null || ownCode.some((prefix) => result.url.startsWith(prefix)) || result.url.includes("/node_modules/")) return result;
  const url = new URL(result.url);
  url.searchParams.set(${JSON.stringify(RELOAD_PARAM)}, version);
  return { ...result, url: url.href };
}`;

let reloadHook = false;
function enableReload(): void {
  if (reloadHook) return;
  reloadHook = true;
  registerHooks(`data:text/javascript,${encodeURIComponent(RELOAD_HOOK)}`, {
    data: { ownCode: OWN_CODE },
  });
}

async function importUrl(url: string): Promise<Record<string, unknown>> {
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!NEEDS_TSX.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
    await enableTypeScript();
    // A URL Node has not failed on yet (a failed load stays cached under its URL).
    const retry = new URL(url);
    retry.searchParams.set("tsx", "1");
    return (await import(retry.href)) as Record<string, unknown>;
  }
}

/**
 * Imports a module file (JavaScript or TypeScript) into the running process's module graph, so it
 * shares topicbot's modules with the CLI that loads it.
 */
export function importFile(path: string): Promise<Record<string, unknown>> {
  return importUrl(pathToFileURL(path).href);
}

/**
 * Imports a module file so that it and the plugin files it imports are evaluated again (load
 * number `version`), while topicbot and packages in node_modules stay the ones already loaded.
 */
export function importFresh(path: string, version: number): Promise<Record<string, unknown>> {
  enableReload();
  const url = new URL(pathToFileURL(path).href);
  url.searchParams.set(RELOAD_PARAM, String(version));
  return importUrl(url.href);
}
