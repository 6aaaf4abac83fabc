// What `bot start` sees of the bundle's compile cache (scripts/chunk-loader.ts): its record, for the debug log, and its hook before V8 flags change.

/** The loader's record of this process (absent when topicbot runs from its sources, as in tests). */
interface CompileCacheRecord {
  dir: string | undefined;
  off?: string;
  hits: string[];
  misses: string[];
  rejected: string[];
  written: string[];
  errors: string[];
  unwritten: string[];
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
