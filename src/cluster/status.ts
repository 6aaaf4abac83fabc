// The cluster as Redis sees it: members, leader, partition owners and lag (for `bot cluster status`).
import type { Redis } from "ioredis";
import type { ClusterKeys } from "./keys.js";

export interface ClusterStatus {
  /** The lease holder's node and fencing token, if a leader is elected. */
  leader: { node: string; token: number; ttlMs: number } | undefined;
  members: {
    node: string;
    role: string;
    pid?: number;
    partitions: number[];
    /** Redis outages this node rode out, and how long its last one was. */
    outages?: number;
    lastOutageMs?: number;
  }[];
  partitions: { partition: number; owner: string | undefined; lag: number }[];
  /** The highest message ID published. */
  watermark: number | undefined;
  /** What is wrong now (no leader, partitions nobody consumes); empty when all is well. */
  degraded: string[];
}

/** Reads the cluster's state from Redis (read-only). */
export async function readClusterStatus(redis: Redis, keys: ClusterKeys): Promise<ClusterStatus> {
  const [holder, ttl, count, watermark] = await Promise.all([
    redis.get(keys.leader),
    redis.pttl(keys.leader),
    redis.get(keys.partitions),
    redis.get(keys.watermark),
  ]);
  const live = await redis.zrange(keys.members, 0, -1);
  const members: ClusterStatus["members"] = [];
  for (const node of live) {
    const about = await redis.get(keys.member(node));
    if (about === null) continue; // its heartbeat expired
    const parsed = JSON.parse(about) as ClusterStatus["members"][number];
    members.push({
      node,
      role: parsed.role,
      pid: parsed.pid,
      partitions: parsed.partitions,
      ...(parsed.outages ? { outages: parsed.outages, lastOutageMs: parsed.lastOutageMs } : {}),
    });
  }
  const partitions: ClusterStatus["partitions"] = [];
  for (let p = 0; p < Number(count ?? 0); p++) {
    const [owner, lag] = await Promise.all([
      redis.get(keys.partitionLock(p)),
      redis.xlen(keys.partition(p)),
    ]);
    // The lock holds `<token>:<node>`.
    partitions.push({ partition: p, owner: owner?.replace(/^\d+:/, "") ?? undefined, lag });
  }
  const separator = holder?.indexOf(":") ?? -1;
  const unowned = partitions.filter((p) => p.owner === undefined).length;
  const degraded = [
    ...(holder ? [] : ["no leader"]),
    ...(unowned > 0 ? [`${unowned} of ${partitions.length} partitions without an owner`] : []),
  ];
  return {
    degraded,
    leader:
      holder && separator > 0
        ? {
            token: Number(holder.slice(0, separator)),
            node: holder.slice(separator + 1),
            ttlMs: ttl,
          }
        : undefined,
    members: members.sort((a, b) => a.node.localeCompare(b.node)),
    partitions,
    watermark: watermark === null ? undefined : Number(watermark),
  };
}

/** The status as the lines `bot cluster status` prints. */
export function formatClusterStatus(status: ClusterStatus): string[] {
  const lines = [
    `state: ${status.degraded.length === 0 ? "ok" : `degraded (${status.degraded.join(", ")})`}`,
    status.leader
      ? `leader: ${status.leader.node} (fencing token ${status.leader.token}, lease ${status.leader.ttlMs} ms left)`
      : "leader: none (no node holds the lease)",
    `watermark: ${status.watermark ?? "none"}`,
    `members (${status.members.length}):`,
    ...status.members.map(
      (m) =>
        `  ${m.node}  ${m.role}  partitions ${m.partitions.sort((a, b) => a - b).join(",") || "-"}` +
        (m.outages ? `  Redis outages ${m.outages} (last ${m.lastOutageMs} ms)` : ""),
    ),
    `partitions (${status.partitions.length}):`,
    ...status.partitions.map(
      (p) => `  ${String(p.partition).padStart(3)}  ${p.owner ?? "(unowned)"}  lag ${p.lag}`,
    ),
  ];
  return lines;
}
