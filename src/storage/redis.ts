// The Redis storage backend: each entry one Redis key (JSON), expiry kept by Redis itself; shared by every process on that Redis.
import { Redis } from "ioredis";
import type { StoreBackend, StoredEntry } from "./store.js";

export interface RedisBackendOptions {
  /** `redis://host:6379/0`; or give a ready `client`. */
  url?: string;
  /** A connected client to use (not closed by `close()`). */
  client?: Redis;
  /** Prefix of every key this backend writes. Default `topicbot:kv:`. */
  prefix?: string;
}

/** Opens a Redis connection that fails its commands (instead of queueing them forever) while Redis is down. */
export function connectRedis(
  url: string,
  name = "topicbot",
  onError: (error: Error) => void = () => undefined,
): Redis {
  const redis = new Redis(url, {
    connectionName: name,
    lazyConnect: false,
    maxRetriesPerRequest: 20,
    enableOfflineQueue: true,
    retryStrategy: (times) => Math.min(50 * times, 1_000),
  });
  redis.on("error", onError);
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
