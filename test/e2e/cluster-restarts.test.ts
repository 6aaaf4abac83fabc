// Cluster mode e2e: a rolling SIGTERM restart of every node, then a Redis restart (AOF), with commands arriving throughout.
import { afterAll, describe, expect, it } from "vitest";
import {
  addUsers,
  botReplies,
  expectEachAnsweredOnceInOrder,
  sendSurely,
  waitUntil,
} from "../chaos/helpers.js";
import { killNode, startCluster, type TestCluster } from "../helpers/cluster.js";

const COMMANDS = Number(process.env.CLUSTER_RESTART_COMMANDS ?? 300);
const USERS = 10;
const TOPICS = 20;

describe("cluster: rolling restart and a Redis restart", () => {
  let cluster: TestCluster | undefined;
  afterAll(async () => {
    await cluster?.close();
  });

  it("loses and repeats nothing when every node is replaced with SIGTERM and Redis restarts", async () => {
    cluster = await startCluster({ nodes: 3 });
    const { sandbox } = cluster;
    const users = addUsers(sandbox, USERS);
    const commands: { id: number; topic: string }[] = [];
    const replied = () => botReplies(sandbox).length;
    const perUser = Math.ceil(COMMANDS / USERS);
    const sending = Promise.all(
      users.map(async (client, u) => {
        for (let i = 0; i < perUser; i++) {
          const topic = `topic ${(u * 2 + (i % 2)) % TOPICS}`;
          const id = await sendSurely(client, topic, "!work");
          commands.push({ id, topic });
          await new Promise((r) => setTimeout(r, 20));
        }
      }),
    );
    const total = perUser * USERS;

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

    await sending;
    await waitUntil(
      () => replied() >= commands.length,
      90_000,
      () => `${replied()} of ${commands.length} replies`,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    await Promise.all(users.map((c) => c.close()));
    expectEachAnsweredOnceInOrder(sandbox, commands);
  }, 240_000);
});
