// The file backend: the whole store in one JSON file, rewritten atomically (temp file, fsync, rename), writes batched.
import { mkdir, open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { storeOver, type KeyValueStore, type StoreBackend, type StoredEntry } from "./store.js";

/**
 * The file operations the backend uses, injectable so tests can fail or stop any step
 * (a crash between writing the temp file and renaming it, for instance).
 */
export interface FileOps {
  /** The file's text, or undefined when it does not exist. */
  read(path: string): Promise<string | undefined>;
  /** Creates `path` (mode 0600), writes `data` and fsyncs it before resolving. */
  writeSynced(path: string, data: string): Promise<void>;
  /** Atomically replaces `to` with `from`. */
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** Names of the entries of a directory. */
  list(dir: string): Promise<string[]>;
  /** Makes the directory and its parents exist. */
  ensureDir(dir: string): Promise<void>;
  /** Fsyncs a directory so a rename in it is durable; may do nothing where unsupported. */
  syncDir(dir: string): Promise<void>;
}

/**
 * 12 random hex digits for a temp file's name, from the global Web Crypto object, which Node loads
 * on first use: importing node:crypto would cost ~2 ms of CPU on every start, and most bots never
 * write a file store (issue 17, start-up). Synchronous: a write takes no extra turn.
 */
const tempSuffix = (): string =>
  Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex");

/** The real file system. */
export const nodeFileOps: FileOps = {
  async read(path) {
    try {
      return await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  },
  async writeSynced(path, data) {
    const handle = await open(path, "wx", 0o600);
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => rename(from, to),
  remove: async (path) => {
    await unlink(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
  },
  list: (dir) => readdir(dir),
  ensureDir: async (dir) => void (await mkdir(dir, { recursive: true })),
  async syncDir(dir) {
    // Directories cannot be opened for fsync on every platform (Windows); durability there rests on rename.
    const handle = await open(dir, "r").catch(() => undefined);
    if (!handle) return;
    try {
      await handle.sync();
    } catch {
      // EINVAL/EISDIR on some file systems: nothing more to do.
    } finally {
      await handle.close();
    }
  },
};

export interface FileBackendOptions {
  /** The store file. Its directory is created when missing. */
  path: string;
  /**
   * Writes within this many milliseconds go to disk together. Default 100: a busy bot writes
   * the file at most ten times a second; `flush()` (and `close()`) write at once.
   */
  flushDelayMs?: number;
  /** Called when a background write fails; the data stays pending and the next flush retries. */
  onError?: (error: unknown) => void;
  /** Called when a background write succeeded. */
  onWritten?: () => void;
  fs?: FileOps;
  now?: () => number;
  /**
   * A store file that lost entries (its count does not match) or stands in for the data (no
   * entries and no count, which every write adds): `fail` (default) stops with an error naming the
   * file; `recover` takes what it holds, with a warning (`warn`).
   */
  onDamage?: "fail" | "recover";
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

const FORMAT = "topicbot-store";
const VERSION = 1;

/** Temp files are `<name>.<random>.tmp` beside the store file. */
const tempPattern = (name: string): RegExp =>
  new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.[0-9a-f]{12}\\.tmp$`);

function parseStoreFile(
  text: string,
  path: string,
  options: Pick<FileBackendOptions, "onDamage" | "warn">,
): Map<string, StoredEntry> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new Error(`storage: ${path} is not valid JSON (${(error as Error).message})`);
  }
  const d = doc as { format?: unknown; version?: unknown; count?: unknown; entries?: unknown };
  if (
    d === null ||
    typeof d !== "object" ||
    d.format !== FORMAT ||
    typeof d.entries !== "object" ||
    d.entries === null
  )
    throw new Error(`storage: ${path} is not a topicbot store file`);
  if (d.version !== VERSION)
    throw new Error(
      typeof d.version === "number" && d.version > VERSION
        ? `storage: ${path} was written by a newer topicbot (store format version ${d.version}; this version reads ${VERSION}): run that version, or restore a backup`
        : `storage: ${path} has format version ${String(d.version)}; expected ${VERSION}`,
    );
  if (Array.isArray(d.entries))
    throw new Error(
      `storage: ${path} is not a topicbot store file: "entries" is a list, where topicbot writes an object of entries by key`,
    );
  const entries = new Map(Object.entries(d.entries as Record<string, StoredEntry>));
  const problem =
    typeof d.count === "number" && d.count !== entries.size
      ? `says it was written with ${d.count} entries but holds ${entries.size}: entries were lost or removed`
      : d.count === undefined && entries.size === 0
        ? "holds no entries and no count (every write of this version records how many entries it holds): it looks like a stand-in for the bot's data"
        : undefined;
  if (problem !== undefined) {
    if (options.onDamage !== "recover")
      throw new Error(
        `storage: ${path} ${problem}. Restore it from a backup; or start with \`bot start --recover\` (storage.onDamage: recover) to take what it holds, with a warning`,
      );
    options.warn?.(
      { file: path, entries: entries.size },
      `storage: ${path} ${problem}; taken as it is (storage.onDamage: recover)`,
    );
  }
  return entries;
}

/**
 * Opens (or creates) a file backend. Every change is held in memory and written by replacing
 * the file atomically: the new content goes to a temp file in the same directory, is fsynced,
 * then renamed over the old file. A crash at any point leaves either the old or the new file
 * whole; temp files a crash left behind are removed here.
 *
 * @example
 * const backend = await openFileBackend({ path: "data/bot.json" });
 * const store = storeOver(backend);
 */
export async function openFileBackend(options: FileBackendOptions): Promise<StoreBackend> {
  const fs = options.fs ?? nodeFileOps;
  const now = options.now ?? Date.now;
  const path = resolve(options.path);
  const dir = dirname(path);
  const name = basename(path);
  const delay = options.flushDelayMs ?? 100;

  await fs.ensureDir(dir);
  const leftovers = (await fs.list(dir)).filter((f) => tempPattern(name).test(f));
  for (const f of leftovers) await fs.remove(join(dir, f));
  const existing = await fs.read(path);
  const data = existing === undefined ? new Map() : parseStoreFile(existing, path, options);

  /** Bumped on every change; the file holds `written`. */
  let version = 0;
  let written = 0;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;

  const serialize = (): string => {
    const t = now();
    const entries: Record<string, StoredEntry> = {};
    let count = 0;
    for (const [key, entry] of data)
      if (entry.expiresAt === undefined || entry.expiresAt > t) {
        entries[key] = entry;
        count++;
      }
    // The count lets a start tell a file that lost entries, or an empty stand-in, from this one.
    return JSON.stringify({ format: FORMAT, version: VERSION, count, entries });
  };

  /** Writes the current state unless the file already has it. Runs one at a time, in order. */
  const writeNow = (): Promise<void> => {
    const run = chain.then(async () => {
      if (written === version) return;
      const target = version;
      const text = serialize();
      const temp = join(dir, `${name}.${tempSuffix()}.tmp`);
      try {
        await fs.writeSynced(temp, text);
        await fs.rename(temp, path);
      } catch (error) {
        await fs.remove(temp).catch(() => undefined);
        throw new Error(`storage: could not write ${path}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      await fs.syncDir(dir);
      written = target;
    });
    chain = run.catch(() => undefined);
    return run;
  };

  const changed = (): void => {
    if (closed) throw new Error(`storage: ${path} is closed`);
    version++;
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      writeNow().then(
        () => options.onWritten?.(),
        (error: unknown) => options.onError?.(error),
      );
    }, delay);
    timer.unref();
  };

  const flush = async (): Promise<void> => {
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    await writeNow();
  };

  return {
    read: async (key) => data.get(key),
    write: async (key, entry) => {
      data.set(key, entry);
      changed();
    },
    remove: async (key) => {
      const had = data.delete(key);
      if (had) changed();
      return had;
    },
    keys: async () => [...data.keys()],
    flush,
    async close() {
      if (closed) return;
      await flush();
      closed = true;
    },
  };
}

/**
 * A store kept in one JSON file.
 *
 * @example
 * const store = await createFileStore({ path: "data/bot.json" });
 * await store.namespace("standup").set("last", { at: Date.now() });
 * await store.close();
 */
export async function createFileStore(options: FileBackendOptions): Promise<KeyValueStore> {
  return storeOver(await openFileBackend(options), options.now);
}
