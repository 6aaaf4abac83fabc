// Cluster key names in Redis, in one place: leader lease, epoch, watermark, partitions, members.

/** Every Redis key cluster mode uses, under one prefix (several bots can share a Redis). */
export function clusterKeys(prefix = "topicbot:cluster:") {
  return {
    prefix,
    /** The leader lease: `<token>:<node>` with a TTL. */
    leader: `${prefix}leader`,
    /** Fencing tokens: incremented on every leader change, never reused. */
    epoch: `${prefix}epoch`,
    /** The highest message ID published (the cluster's delivery watermark). */
    watermark: `${prefix}watermark`,
    /** Message IDs published (a sorted set), so a new leader's catch-up publishes nothing twice. */
    published: `${prefix}published`,
    /** Non-message events, fanned out to every node. */
    broadcast: `${prefix}broadcast`,
    /** The consumer group every partition stream has. */
    group: "workers",
    partition: (n: number) => `${prefix}partition:${n}`,
    /** Who consumes partition `n` now: `<token>:<node>` with a TTL. */
    partitionLock: (n: number) => `${prefix}partition-lock:${n}`,
    /** The value partition `n`'s lock was last taken with (no TTL): a lapsed lock may be resumed by it. */
    partitionLast: (n: number) => `${prefix}partition-last:${n}`,
    /** Live nodes: a sorted set scored by when their heartbeat expires (Redis time). */
    members: `${prefix}members`,
    /** One node's self-description (role, partitions, lag) for `bot cluster status`. */
    member: (node: string) => `${prefix}member:${node}`,
    /** The number of partitions the cluster was started with (every node must agree). */
    partitions: `${prefix}partitions`,
    /** Once-per-tick locks of cluster-wide duties (cron ticks, webhook deliveries). */
    once: (what: string) => `${prefix}once:${what}`,
  };
}

export type ClusterKeys = ReturnType<typeof clusterKeys>;
