// Cluster mode e2e: a rolling SIGTERM restart of every node, then a Redis restart (AOF), with commands arriving throughout.
import { afterAll, describe, expect, it } from "vitest";
import { waitUntil } from "../chaos/helpers.js";
import { killNode, startCluster, streamCommands, type TestCluster } from "../helpers/cluster.js";

const COMMANDS = Number(process.env.CLUSTER_RESTART_COMMANDS ?? 300);

describe("cluster: rolling restart and a Redis restart", () => {
  let cluster: TestCluster | undefined;
  afterAll(async () => {
    await cluster?.close();
  });

  it("loses and repeats nothing when every node is replaced with SIGTERM and Redis restarts", async () => {
    cluster = await startCluster({ nodes: 3 });
    const { sandbox } = cluster;
    const stream = streamCommands(sandbox, { count: COMMANDS, users: 10, topics: 20, window: 3 });
    const replied = stream.replied;
    const total = stream.total;

    // Rolling restart: start a replacement, then stop an old node with SIGTERM, one at a time.
    const originals = [...cluster.nodes];
    for (const [i, old] of originals.entries()) {
      await waitUntil(
        () => replied() >= total * (0.1 + i * 0.15),
        90_000,
        () => `${replied()} replies before restarting node ${i}`,
      );
      await cluster.spawnNode();
      await killNode(old, "SIGTERM");
      expect(old.child.exitCode, `node ${i} exits cleanly on SIGTERM`).toBe(0);
      expect(old.stdout.text).toContain("cluster: node left");
    }

    // Redis restarts (SIGTERM: it finishes its AOF) while commands keep coming.
    await waitUntil(
      () => replied() >= total * 0.6,
      90_000,
      () => `${replied()} replies before the Redis restart`,
    );
    await cluster.redis.restart();

    await stream.finish();
  }, 360_000);
});
