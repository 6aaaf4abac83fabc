// The Redis storage backend: each entry one Redis key (JSON), expiry kept by Redis itself; shared by every process on that Redis.
import { Redis, type RedisOptions } from "ioredis";
import { redisTarget } from "../redis-url.js";
import type { StoreBackend, StoredEntry } from "./store.js";

export interface RedisBackendOptions {
  /** `redis://host:6379/0` or `redis+sentinel://host:26379/mymaster/0`; or give a ready `client`. */
  url?: string;
  /** A connected client to use (not closed by `close()`). */
  client?: Redis;
  /** Prefix of every key this backend writes. Default `topicbot:kv:`. */
  prefix?: string;
}

export interface ConnectOptions {
  /** Called on connection errors (ioredis reconnects by itself). */
  onError?: (error: Error) => void;
  /**
   * Give a command up after one failed reconnection while Redis is unreachable (for callers that
   * have something better to do than wait, such as rate-limit pacing). Default: commands wait for
   * the connection to return, however long that takes; no retry limit of the client decides their fate.
   */
  failFast?: boolean;
}

/**
 * Opens a Redis connection to `url`: `redis://`, `rediss://`, or a Sentinel set as
 * `redis+sentinel://host:port,host:port/<name>[/<db>]` (the primary is asked of the sentinels, and
 * asked again after a failover). Commands issued while Redis is unreachable wait until it is back.
 */
export function connectRedis(
  url: string,
  name = "topicbot",
  onErrorOrOptions: ((error: Error) => void) | ConnectOptions = {},
): Redis {
  const options =
    typeof onErrorOrOptions === "function" ? { onError: onErrorOrOptions } : onErrorOrOptions;
  const common: RedisOptions = {
    connectionName: name,
    lazyConnect: false,
    maxRetriesPerRequest: options.failFast ? 1 : null,
    // Commands sent before the first connection wait for it (failFast ones for one reconnection).
    enableOfflineQueue: true,
    retryStrategy: (times) => Math.min(50 * times, 1_000),
    // A primary demoted by a failover answers READONLY: reconnect (to the new primary) and resend.
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false),
  };
  const target = redisTarget(url);
  const redis =
    "url" in target
      ? new Redis(target.url, common)
      : new Redis({
          ...common,
          ...target.options,
          // No failover detector: with it, a connection whose primary was SIGKILLed ended for good
          // ("Connection is closed.") in the Sentinel chaos test, 4 runs of 4; without it the
          // connection asks the sentinels again on reconnecting (and READONLY above covers a primary
          // demoted alive), and that test passes (10 runs of 10 on a quiet machine; issue 31's note).
          sentinelRetryStrategy: (times) => Math.min(100 * times, 1_000),
        });
  redis.on("error", options.onError ?? (() => undefined));
  return redis;
}

/**
 * A `StoreBackend` on Redis: plugin storage, sessions and open questions shared by every bot
 * process that points at the same Redis (cluster mode, or one process that wants it).
 *
 * @example
 * const store = storeOver(openRedisBackend({ url: "redis://127.0.0.1:6379/0" }));
 * await store.namespace("karma").set("mia", 3);
 */
export function openRedisBackend(options: RedisBackendOptions): StoreBackend {
  if (!options.client && !options.url) throw new TypeError("redis storage needs `url`");
  const redis = options.client ?? connectRedis(options.url!, "topicbot-storage");
  const prefix = options.prefix ?? "topicbot:kv:";
  const at = (key: string): string => prefix + key;
  return {
    async read(key) {
      const text = await redis.get(at(key));
      return text === null ? undefined : (JSON.parse(text) as StoredEntry);
    },
    async write(key, entry) {
      const text = JSON.stringify(entry);
      if (entry.expiresAt === undefined) await redis.set(at(key), text);
      else await redis.set(at(key), text, "PXAT", Math.max(1, Math.ceil(entry.expiresAt)));
    },
    remove: async (key) => (await redis.del(at(key))) > 0,
    async keys() {
      const out: string[] = [];
      let cursor = "0";
      do {
        const [next, batch] = await redis.scan(
          cursor,
          "MATCH",
          `${escapeGlob(prefix)}*`,
          "COUNT",
          500,
        );
        for (const key of batch) out.push(key.slice(prefix.length));
        cursor = next;
      } while (cursor !== "0");
      return out;
    },
    flush: async () => undefined,
    async close() {
      if (!options.client) await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Escapes Redis glob characters so a prefix matches itself only. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
