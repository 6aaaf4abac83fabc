// `bot cluster status`: prints the cluster's members, leader, partitions and lag, read from its Redis.
import { loadConfigFile } from "../../config/load.js";
import { ConfigError } from "../../config/errors.js";
import { clusterKeys } from "../../cluster/keys.js";
import { formatClusterStatus, readClusterStatus } from "../../cluster/status.js";
import { connectRedis } from "../../state/key-value/redis.js";
import { clusterRedis } from "../cluster-storage.js";
import { redact } from "../../state/redis-url.js";

/** How long `bot cluster status` waits for Redis before it reports it unreachable. */
const REACH_MS = 3_000;
import type { Output } from "../output.js";

export interface ClusterStatusOptions {
  config: string;
  /** Redis URL; default `cluster.redis` of the config. */
  cluster?: string;
  json?: boolean;
}

/** Prints the status; resolves with the exit code: 0 all well, 1 degraded (or Redis unreachable). */
export async function runClusterStatus(
  options: ClusterStatusOptions,
  out: Output,
): Promise<number> {
  const url =
    options.cluster === undefined
      ? clusterRedis(undefined, (await loadConfigFile(options.config)).cluster, options.config)
      : clusterRedis(options.cluster, undefined, options.config);
  if (!url)
    throw new ConfigError(
      options.config,
      "cluster",
      "no cluster configured (give cluster.redis or --cluster <redis-url>)",
    );
  // Fail at once when Redis is unreachable: the status says so instead of waiting for it.
  const redis = connectRedis(url, "topicbot-status", { failFast: true });
  const reachable = await new Promise<Error | undefined>((resolve) => {
    const timer = setTimeout(
      () => resolve(new Error(`no answer within ${REACH_MS / 1000} s`)),
      REACH_MS,
    );
    redis.once("ready", () => (clearTimeout(timer), resolve(undefined)));
  });
  try {
    if (reachable) {
      const problem = `Redis unreachable at ${redact(url)}: ${reachable.message}`;
      if (options.json) out.stdout(JSON.stringify({ degraded: [problem] }));
      else out.stdout(`state: degraded (${problem})`);
      return 1;
    }
    const status = await readClusterStatus(redis, clusterKeys());
    if (options.json) out.stdout(JSON.stringify(status));
    else for (const line of formatClusterStatus(status)) out.stdout(line);
    return status.degraded.length === 0 ? 0 : 1;
  } finally {
    // A Redis that accepted the connection and never answered would not answer QUIT either.
    if (reachable) redis.disconnect();
    else await redis.quit().catch(() => redis.disconnect());
  }
}
