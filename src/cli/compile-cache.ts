// What `bot start` sees of the bundle's compile cache (scripts/chunk-loader.ts): its record, for the debug log, and its hook before V8 flags change.

/**
 * What the compile cache did in this process, kept by the loader (scripts/chunk-loader.ts, which
 * imports this type) on `globalThis`; absent when topicbot runs from its sources, as in tests.
 */
export interface CompileCacheRecord {
  /** The folder of the cache files, or undefined when the cache is off. */
  dir: string | undefined;
  /** Why there is no cache in this process (switched off, folder not safe to use). */
  off?: string;
  /** Chunks compiled from their cached code. */
  hits: string[];
  /** Chunks without a cache file. */
  misses: string[];
  /** Chunks whose cache file V8 refused (another Node, a damaged file): rewritten. */
  rejected: string[];
  /** Cache files written by this process. */
  written: string[];
  /** Cache work that failed (read, write): the chunk ran without it. */
  errors: string[];
  /** Chunks and entries the loader ran, in order (`../index` for the bundle's `index.js`). */
  loaded: string[];
  /** Chunks loaded after the V8 flags changed: no cache file written for them (see `beforeFlagsChange`). */
  unwritten: string[];
  /**
   * Writes the pending cache files now, and none later. V8 refuses a code cache made under other
   * V8 flags than the process loading it runs with, so a process about to change one (`bot
   * start`'s memory policy, `v8.setFlagsFromString`) calls this first: what it writes then is what
   * the next start, whose flags are still Node's, can use.
   */
  beforeFlagsChange(): void;
}

const record = (): CompileCacheRecord | undefined =>
  (globalThis as { [key: symbol]: CompileCacheRecord | undefined })[
    Symbol.for("topicbot.compileCache")
  ];

/**
 * What the compile cache did so far, for `bot start`'s debug log when ready: which chunks were
 * compiled from cached code (hits), had none (misses) or had one V8 refused (rejected, rewritten),
 * which files this process wrote (and which chunks it loaded too late to write: after V8's flags
 * changed), and why there is no cache if there is none.
 */
export function compileCacheReport(): Record<string, unknown> | undefined {
  const r = record();
  if (!r) return undefined;
  return {
    dir: r.dir,
    off: r.off,
    hits: r.hits,
    misses: r.misses,
    rejected: r.rejected,
    written: r.written,
    errors: r.errors.length > 0 ? r.errors : undefined,
    unwritten: r.unwritten.length > 0 ? r.unwritten : undefined,
  };
}

/**
 * Called before a V8 flag changes: the loader writes its cache files now, since V8 refuses a code
 * cache made under other flags than the next start runs with.
 */
export function beforeV8FlagsChange(): void {
  record()?.beforeFlagsChange();
}
