// createStore: the store a config names (memory, file or redis); the one place a new backend is added.
import { isAbsolute, resolve } from "node:path";
import { openFileBackend, type FileOps } from "./file.js";
import {
  createMemoryStore,
  memoryBackend,
  storeOver,
  type KeyValueStore,
  type StoreBackend,
} from "./store.js";

/**
 * The `storage` section of bot.config.yaml. A networked backend (Redis, SQL, ...) becomes one
 * more variant here and one more case in `openBackend`: it implements `StoreBackend`, whose
 * methods are all asynchronous for that reason, and plugins never notice the difference.
 */
export type StorageConfig =
  | { type: "memory" }
  | {
      type: "file";
      /** The store file; relative paths are resolved against the config file's directory. */
      path: string;
      /** Milliseconds within which writes are batched into one file write. */
      flushDelayMs?: number;
      /** Fsync every record of the delivery journal beside the file (power-cut safety). Default false. */
      fsync?: boolean;
      /**
       * A damaged delivery journal or store file: `fail` (default) stops the start with an error
       * naming the file; `recover` starts from the safest point left, with a warning.
       */
      onDamage?: "fail" | "recover";
    }
  | {
      type: "redis";
      /** `redis://host:6379/0`. */
      url: string;
      /** Prefix of every key. Default `topicbot:kv:`. */
      prefix?: string;
    };

export interface CreateStoreOptions {
  /** Directory relative paths are resolved against (the config file's). Default: the working directory. */
  baseDir?: string;
  now?: () => number;
  /** Reports background write failures (the file backend retries them on the next flush). */
  onError?: (error: unknown) => void;
  /** Hears of each background write that succeeded (ends a failure streak). */
  onWritten?: () => void;
  /** Told of a damaged file taken as it is (`onDamage: recover`). */
  warn?: (fields: Record<string, unknown>, message: string) => void;
  fs?: FileOps;
}

/** Opens the backend a storage config describes. */
export async function openBackend(
  config: StorageConfig,
  options: CreateStoreOptions = {},
): Promise<StoreBackend> {
  switch (config.type) {
    case "memory":
      return memoryBackend();
    case "file":
      return openFileBackend({
        path: isAbsolute(config.path)
          ? config.path
          : resolve(options.baseDir ?? process.cwd(), config.path),
        flushDelayMs: config.flushDelayMs,
        onError: options.onError,
        onWritten: options.onWritten,
        fs: options.fs,
        now: options.now,
        onDamage: config.onDamage,
        warn: options.warn,
      });
    case "redis":
      // Imported here, so that a bot without Redis never loads ioredis.
      return (await import("./redis.js")).openRedisBackend({
        url: config.url,
        prefix: config.prefix,
      });
  }
}

/**
 * The key-value store a config selects.
 *
 * @example
 * const store = await createStore({ type: "file", path: "data/bot.json" }, { baseDir: "/srv/bot" });
 * await store.namespace("karma").set("mia", 3);
 */
export async function createStore(
  config: StorageConfig,
  options: CreateStoreOptions = {},
): Promise<KeyValueStore> {
  if (config.type === "memory") return createMemoryStore(options.now);
  return storeOver(await openBackend(config, options), options.now);
}
