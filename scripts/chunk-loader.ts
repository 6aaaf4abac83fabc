// The bundle's chunk loader (built to dist/bundle/chunk-loader.js by scripts/bundle.mjs): runs the chunks converted to CommonJS through vm.Script with a V8 code cache on disk.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import Module, { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import type { CompileCacheRecord } from "../src/cli/compile-cache.js";

// Why (issue 17, start-up): V8 parses and compiles the ~1.5 MB of JavaScript `bot start` loads on
// every start, about a third of its CPU before the first answer. Node 22 keeps that work on disk
// (`module.enableCompileCache()`), Node 20 has no cache for ES modules at all, but `vm.Script`
// takes V8's code cache (`cachedData`) on every version. So scripts/bundle.mjs writes each chunk
// it can also as CommonJS (`chunk-X.cjs`) and turns `chunk-X.js` into a facade that asks this
// module for the chunk's exports: importers (entries, other chunks, user plugins through
// "topicbot") still import `chunk-X.js`, and each chunk still runs once per process. The entries
// (`dist/bundle/cli.js`, `index.js`, ...) are facades of the same kind: a converted entry or chunk
// takes the chunks it imports from here by `require`, so `bot start` loads four ES modules of the
// bundle (the CLI's facade, this loader, the start chunk's facade, and `index.js` for the plugins)
// rather than one per chunk (each costs Node's ES-module loader about half a millisecond of CPU:
// resolve, read, compile, link).

/** A chunk's exports: getters while its body runs (esbuild's CommonJS form), plain values after (`settledExports`). */
type Exports = Record<string, unknown>;

/**
 * How each `.cjs` file starts (scripts/bundle.mjs): the parameters `load` passes, in order; then
 * `/*topicbot:<hash of the code>*\/`, or `/*topicbot:<hash>:import*\/` for code that calls
 * `import()` on what is not a chunk (a package, a user's plugin file): see `compileMapped`.
 */
const WRAPPER = "(function (exports, require, module, __filename, __dirname, __topicbotChunkUrl) {";
/** Bump when the wrapper or the file format changes: old files are then simply not found. */
const FORMAT = 1;
const chunksDir = new URL("./chunks/", import.meta.url);
/** Resolves what a chunk requires besides its siblings: Node's built-ins and installed packages. */
const nodeRequire = createRequire(chunksDir);

const record: CompileCacheRecord = {
  dir: undefined,
  hits: [],
  misses: [],
  rejected: [],
  written: [],
  errors: [],
  unwritten: [],
  loaded: [],
  beforeFlagsChange() {
    writeCaches();
    flagsChanged = true;
  },
};
(globalThis as Record<symbol, unknown>)[Symbol.for("topicbot.compileCache")] = record;

/** Chunks loaded (or loading: a cycle would meet the exports object before the body has run). */
const registry = new Map<string, { exports: Exports }>();
/** Compiled chunks whose code cache is to be written once the process has run a while. */
const toWrite = new Map<string, Script>();
let cacheDir: string | undefined | null = null;
let writeScheduled = false;
/** Set by `beforeFlagsChange`: a cache file written from now on would be refused. */
let flagsChanged = false;

/** A chunk's code: the function expression of its `.cjs` file (WRAPPER's parameters). */
type ChunkFunction = (
  exports: Exports,
  require: (specifier: string) => unknown,
  module: { exports: Exports },
  filename: string,
  dirname: string,
  chunkUrl: string,
) => void;

/**
 * The exports of the chunk `name` (`chunk-X`, without extension; `../index` for an entry of the
 * bundle), running it on first use.
 */
export function load(name: string): Exports {
  const loaded = registry.get(name);
  if (loaded) return loaded.exports;
  const file = fileURLToPath(new URL(`${name}.cjs`, chunksDir));
  // The file is the function expression itself (scripts/bundle.mjs wraps it, on its first line so
  // the chunk's line numbers and source map stay right): compiled as read, no second copy of it.
  const source = readFileSync(file, "utf8");
  const hash = source.startsWith(WRAPPER)
    ? /^\/\*topicbot:([0-9a-f]{16})(:import)?\*\//.exec(
        source.slice(WRAPPER.length, WRAPPER.length + 40),
      )
    : null;
  if (!hash) throw new Error(`${file} is not a chunk of this topicbot build: build it again`);
  record.loaded.push(name);
  const run =
    process.sourceMapsEnabled || hash[2]
      ? compileMapped(file, source)
      : compileCached(
          `${name.replace(/^\.\.\//, "entry-")}-${hash[1]}-${pathKey(file)}`,
          file,
          source,
        );
  const module = { exports: {} as Exports };
  registry.set(name, module);
  try {
    // The chunk's original URL as its `import.meta.url`: ownPackage() and createRequire() see what they saw.
    run(
      module.exports,
      requireFrom,
      module,
      file,
      dirname(file),
      new URL(`${name}.js`, chunksDir).href,
    );
  } catch (error) {
    registry.delete(name); // As an ES module that threw: the next import throws again, not half-run.
    throw error;
  }
  const exports = settledExports(module.exports);
  registry.set(name, { exports });
  return exports;
}

/**
 * A chunk's exports as plain values, once its body has run. esbuild's CommonJS form exports
 * getters (two deep: its `__toCommonJS` copy over its `__export` object) and every use of another
 * chunk's export in the importer's code reads one (`(0, import_chunk.string)()`): building the
 * wire and config schemas at start-up makes thousands of such calls to zod's chunk. Plain
 * properties cost a load each. The values cannot change later: scripts/bundle.mjs converts no
 * chunk whose code assigns an export again (a facade copies them once too). `__esModule` marks it
 * as esbuild's own form does, for the `import()`s of sibling chunks it turned into `require`.
 */
function settledExports(live: Exports): Exports {
  const exports: Exports = {};
  for (const key of Object.keys(live)) exports[key] = live[key];
  return Object.defineProperty(exports, "__esModule", { value: true });
}

/**
 * Compiles a chunk through vm.Script with its code cache, noting a hit, miss or refusal. `name`
 * is the chunk's with the hash of its code, as V8 checks only the length of a cache's source.
 */
function compileCached(name: string, file: string, source: string): ChunkFunction {
  const cached = readCache(name);
  const script = new Script(source, { filename: file, cachedData: cached });
  if (cached === undefined) {
    if (cacheDir) record.misses.push(name);
    scheduleWrite(name, script);
  } else if (script.cachedDataRejected) {
    record.rejected.push(name);
    scheduleWrite(name, script);
  } else record.hits.push(name);
  return script.runInThisContext() as ChunkFunction;
}

/**
 * Compiles a chunk through Node's CommonJS loader, when source maps are on
 * (`--enable-source-maps`): Node maps the stack frames of code it compiled itself, not those of a
 * vm.Script. Node 20 has no code cache for it: a process that maps its stack traces runs without.
 * Also the few chunks that `import()` a package or a file (the CLI's commander, tsx and a user's
 * plugin, vitest): code Node compiled itself may call `import()`, a vm.Script on Node 20 before
 * 20.12 may not. They are small (about 20 KB of the 3 MB) and run without a code cache.
 */
function compileMapped(file: string, source: string): ChunkFunction {
  const module = new Module(file) as Module & { _compile(code: string, file: string): void };
  module.filename = file;
  module._compile(`module.exports = ${source}`, file);
  return module.exports as ChunkFunction;
}

/**
 * The cache key of a chunk's path (FNV-1a, 32 bits, in hex). V8's code cache carries the script it
 * was compiled from, file name included: a cache written by another checkout of the same build
 * (same code, same hash) made this one's stack traces name the other's files (issue 29). Keyed by
 * path too, each checkout compiles and caches its own.
 */
function pathKey(file: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < file.length; i++) h = Math.imul(h ^ file.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/**
 * The chunks' `require`: a chunk of the bundle (`./chunk-X.js` from a chunk, `./chunks/chunk-X.js`
 * from an entry) comes from the registry, anything else from Node.
 */
function requireFrom(specifier: string): unknown {
  const sibling = /^\.\/(?:chunks\/)?([\w-]+)\.js$/.exec(specifier);
  return sibling ? load(sibling[1]!) : nodeRequire(specifier);
}

/** The cache file of a chunk (`name`: the chunk's and its code's hash) for this Node; V8 checks the rest. */
const cacheFile = (dir: string, name: string): string =>
  join(dir, `${name}-${process.version}-${process.arch}.v8`);

/** The cached code of a chunk, or undefined (no cache, no file, unreadable). */
function readCache(name: string): Buffer | undefined {
  const dir = cacheFolder();
  if (!dir) return undefined;
  try {
    return readFileSync(cacheFile(dir, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      record.errors.push(`read ${name}: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * The folder of our cache files, or undefined when there is none. Where Node keeps its own compile
 * cache (`$NODE_COMPILE_CACHE`, else `<tmpdir>/node-compile-cache`), in a folder of ours, and off
 * with Node's switch `NODE_DISABLE_COMPILE_CACHE=1`. A shared temporary folder is hostile: a
 * cache file someone else wrote is code we would run, so the folder is used only if it is a real
 * directory of this user's that nobody else can write to (nor can they swap it: its parent is
 * checked too).
 */
function cacheFolder(): string | undefined {
  if (cacheDir !== null) return cacheDir;
  cacheDir = undefined;
  if (process.env.NODE_DISABLE_COMPILE_CACHE === "1") {
    record.off = "NODE_DISABLE_COMPILE_CACHE=1";
    return undefined;
  }
  try {
    const base = process.env.NODE_COMPILE_CACHE || join(tmpdir(), "node-compile-cache");
    const dir = join(base, `topicbot-${FORMAT}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const unsafe =
      unsafeFolder(dir, lstatSync(dir), false) ?? unsafeFolder(base, statSync(base), true);
    if (unsafe) {
      record.off = unsafe;
      return undefined;
    }
    cacheDir = dir;
    record.dir = dir;
  } catch (error) {
    record.off = `no cache folder: ${(error as Error).message}`;
  }
  return cacheDir;
}

/** Why a folder is not safe for the cache (another owner, others may write or read), or undefined. */
function unsafeFolder(
  path: string,
  stats: { isDirectory(): boolean; uid: number; mode: number },
  parent: boolean,
): string | undefined {
  if (!stats.isDirectory()) return `${path} is not a directory`;
  const uid = process.getuid?.();
  if (uid === undefined) return undefined; // Windows: no owners to check; tmpdir is per user.
  // The parent may be root's (a system folder) or shared with the sticky bit, as /tmp is.
  if (stats.uid !== uid && !(parent && stats.uid === 0))
    return `${path} belongs to user ${stats.uid}, not ${uid}`;
  const othersWrite = (stats.mode & 0o022) !== 0;
  if (parent ? othersWrite && (stats.mode & 0o1000) === 0 : (stats.mode & 0o077) !== 0)
    return `${path} has mode ${(stats.mode & 0o7777).toString(8)}: others may ${parent ? "write" : "use"} it`;
  return undefined;
}

/**
 * Writes the code cache of the chunks compiled without one, once: a second after the first
 * load, when the start path's functions (compiled lazily, on first call) are in V8's cache too, or
 * when the process exits before that (a short command; `bot start` stopped by a signal). The timer
 * does not keep the process alive.
 */
function scheduleWrite(name: string, script: Script): void {
  if (!cacheDir) return;
  if (flagsChanged) {
    record.unwritten.push(name);
    return;
  }
  toWrite.set(name, script);
  if (writeScheduled) return;
  writeScheduled = true;
  setTimeout(writeCaches, 1000).unref();
  process.once("exit", writeCaches);
}

/** Writes each pending cache file to a temporary name, then renames it: another process reads a whole file or none. */
function writeCaches(): void {
  process.removeListener("exit", writeCaches);
  for (const [name, script] of toWrite) {
    const file = cacheFile(cacheDir!, name);
    const temp = `${file}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
      renameSync(temp, file);
      record.written.push(name);
    } catch (error) {
      record.errors.push(`write ${name}: ${(error as Error).message}`);
      try {
        rmSync(temp, { force: true });
      } catch {
        // Left behind: a later write renames over its own temporary name.
      }
    }
  }
  if (toWrite.size > 0) pruneStale(cacheDir!);
  toWrite.clear();
}

/** How long a cache file is kept after it was written: every build of topicbot, every Node, leaves its own. */
const STALE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Removes the cache files written more than STALE_MS ago, when a process writes some (a new build
 * or a new Node version came): one still in use is written again by the next start, which misses it.
 */
function pruneStale(dir: string): void {
  try {
    const now = Date.now();
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (now - lstatSync(path).mtimeMs > STALE_MS) rmSync(path, { force: true });
    }
  } catch (error) {
    record.errors.push(`prune: ${(error as Error).message}`);
  }
}
