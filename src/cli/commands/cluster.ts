// `bot cluster status`: prints the cluster's members, leader, partitions and lag, read from its Redis.
import { loadConfigFile } from "../../config/load.js";
import { ConfigError } from "../../config/errors.js";
import { clusterKeys } from "../../cluster/keys.js";
import { formatClusterStatus, readClusterStatus } from "../../cluster/status.js";
import { connectRedis } from "../../storage/redis.js";
import type { Output } from "../output.js";

export interface ClusterStatusOptions {
  config: string;
  /** Redis URL; default `cluster.redis` of the config. */
  cluster?: string;
  json?: boolean;
}

/** Prints the status; resolves with the exit code. */
export async function runClusterStatus(
  options: ClusterStatusOptions,
  out: Output,
): Promise<number> {
  const url = options.cluster ?? (await loadConfigFile(options.config)).cluster?.redis;
  if (!url)
    throw new ConfigError(
      options.config,
      "cluster",
      "no cluster configured (give cluster.redis or --cluster <redis-url>)",
    );
  const redis = connectRedis(url, "topicbot-status");
  try {
    const status = await readClusterStatus(redis, clusterKeys());
    if (options.json) out.stdout(JSON.stringify(status));
    else for (const line of formatClusterStatus(status)) out.stdout(line);
    return 0;
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}
