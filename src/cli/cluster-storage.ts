// Cluster settings of the CLI: the cluster's Redis (`--cluster` over `cluster.redis`) and where a bot's storage lives in cluster mode.
import { ConfigError } from "../config/errors.js";
import type { BotConfig, StorageSettings } from "../config/schema.js";
import { parseSentinelUrl, sentinelUrl, isSentinelUrl } from "../state/redis-url.js";

const REDIS_URL = /^(rediss?|redis\+sentinel):\/\/[^\s]+$/;

/**
 * The cluster's Redis as one URL, or undefined when not in cluster mode. The `--cluster` flag
 * overrides `cluster.redis` (so a `cluster:` section may leave `redis` out when the flag gives
 * it); a Sentinel set spelled out in the config becomes its `redis+sentinel://` URL.
 */
export function clusterRedis(
  flag: string | undefined,
  cluster: BotConfig["cluster"],
  file: string,
): string | undefined {
  if (flag !== undefined) {
    if (!REDIS_URL.test(flag))
      throw new ConfigError(
        "command line",
        "--cluster",
        "expected a Redis URL such as redis://127.0.0.1:6379/0 or redis+sentinel://127.0.0.1:26379/mymaster/0",
      );
    checkSentinel(flag, (why) => new ConfigError("command line", "--cluster", why));
    return flag;
  }
  if (!cluster) return undefined;
  const redis = cluster.redis;
  if (redis === undefined)
    throw new ConfigError(
      file,
      "cluster.redis",
      "required: the cluster's Redis URL (or give it with --cluster <redis-url>)",
    );
  if (typeof redis === "string") {
    checkSentinel(redis, (why) => new ConfigError(file, "cluster.redis", why));
    return redis;
  }
  return sentinelUrl({
    ...redis,
    sentinels: redis.sentinels.map((s) => {
      if (typeof s !== "string") return s;
      const colon = s.lastIndexOf(":");
      return { host: s.slice(0, colon), port: Number(s.slice(colon + 1)) };
    }),
  });
}

function checkSentinel(url: string, fail: (why: string) => Error): void {
  if (!isSentinelUrl(url)) return;
  try {
    parseSentinelUrl(url);
  } catch (error) {
    throw fail((error as Error).message);
  }
}

/**
 * The storage a bot uses: `storage` as configured, except in cluster mode (`clusterUrl` set),
 * where the default (memory) becomes the cluster's Redis and a file is refused (`file` names
 * the config file in the error).
 */
export function clusterStorage(
  storage: StorageSettings,
  clusterUrl: string | undefined,
  file: string,
): StorageSettings {
  if (!clusterUrl || storage.type === "redis") return storage;
  if (storage.type === "memory") return { type: "redis", url: clusterUrl };
  throw new ConfigError(
    file,
    "storage",
    "cluster mode shares storage through Redis; use storage: { type: redis, url: ... } or leave storage out",
  );
}
