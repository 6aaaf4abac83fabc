// Cluster mode e2e: 3 real node processes on one Redis; the leader and a worker are SIGKILLed mid-stream.
import { afterAll, describe, expect, it } from "vitest";
import { partitionOf } from "../../src/cluster/partition.js";
import {
  addUsers,
  botReplies,
  expectEachAnsweredOnceInOrder,
  sendSurely,
  waitUntil,
} from "../chaos/helpers.js";
import { killNode, startCluster, type TestCluster } from "../helpers/cluster.js";

const COMMANDS = Number(process.env.CLUSTER_COMMANDS ?? 600);
const USERS = 20;
const TOPICS = 40;
const PARTITIONS = 16;

describe("cluster: 3 nodes, SIGKILL of the leader twice and a worker twice", () => {
  let cluster: TestCluster | undefined;
  afterAll(async () => {
    await cluster?.close();
  });

  it("answers every command exactly once, in per-topic order, and fails over within 5 s", async () => {
    cluster = await startCluster({ nodes: 3 });
    const { sandbox } = cluster;
    const users = addUsers(sandbox, USERS);
    const general = sandbox.realm.channelByName("general")!;
    const commands: { id: number; topic: string }[] = [];
    const answered = (id: number) => botReplies(sandbox).some((r) => r.answers === id);
    const failovers: { kind: string; takeoverMs?: number; answeredMs: number }[] = [];
    const replied = () => botReplies(sandbox).length;

    /** Kills a node and measures until a command in a conversation it served is answered. */
    const killAndProbe = async (kind: "leader" | "worker", round: number) => {
      const leader = await cluster!.leaderPid();
      const owners = await cluster!.owners(PARTITIONS);
      const victim = cluster!.nodes.find((n) =>
        kind === "leader"
          ? n.pid === leader
          : n.pid !== leader &&
            [...owners.values()].includes(n.pid) &&
            n.child.exitCode === null &&
            n.child.signalCode === null,
      );
      expect(victim, `a live ${kind} to kill`).toBeDefined();
      const held = [...owners].filter(([, pid]) => pid === victim!.pid).map(([p]) => p);
      let topic = `probe ${kind} ${round}`;
      for (
        let i = 0;
        held.length > 0 &&
        !held.includes(partitionOf(`channel:${general.streamId}:${topic}`, PARTITIONS));
        i++
      )
        topic = `probe ${kind} ${round} ${i}`;
      const started = Date.now();
      console.log(
        `kill ${kind} ${victim!.pid} at ${new Date(started).toISOString()} probe topic "${topic}" partitions ${held}`,
      );
      await killNode(victim!);
      const id = await sendSurely(users[round % USERS]!, topic, "!work");
      commands.push({ id, topic });
      // Takeover: a new leader holds the lease, or every partition the victim held has a live owner.
      let takeoverMs: number | undefined;
      const watching = (async () => {
        for (let i = 0; i < 400 && takeoverMs === undefined; i++) {
          const moved =
            kind === "leader"
              ? ((await cluster!.leaderPid()) ?? victim!.pid) !== victim!.pid
              : held.every((p) => {
                  const owner = owners.get(p);
                  return owner !== undefined && owner !== victim!.pid;
                });
          if (kind === "worker") {
            const now = await cluster!.owners(PARTITIONS);
            owners.clear();
            for (const [p, pid] of now) owners.set(p, pid);
          }
          if (moved) takeoverMs = Date.now() - started;
          else await new Promise((r) => setTimeout(r, 50));
        }
      })();
      await waitUntil(
        () => answered(id),
        20_000,
        () => `no answer to the probe after killing the ${kind}`,
      );
      await watching;
      failovers.push({ kind, takeoverMs, answeredMs: Date.now() - started });
      await cluster!.spawnNode();
    };

    const perUser = Math.ceil(COMMANDS / USERS);
    const sending = Promise.all(
      users.map(async (client, u) => {
        for (let i = 0; i < perUser; i++) {
          const topic = `topic ${(u * 2 + (i % 2)) % TOPICS}`;
          const id = await sendSurely(client, topic, "!work");
          commands.push({ id, topic });
          await new Promise((r) => setTimeout(r, 5));
        }
      }),
    );
    const total = perUser * USERS;
    const kills: ["leader" | "worker", number][] = [
      ["leader", 0.15],
      ["worker", 0.3],
      ["leader", 0.45],
      ["worker", 0.6],
    ];
    for (const [round, [kind, at]] of kills.entries()) {
      await waitUntil(
        () => replied() >= total * at,
        90_000,
        () => `${replied()} replies before kill ${round}`,
      );
      await killAndProbe(kind, round);
    }
    await sending;
    await waitUntil(
      () => replied() >= commands.length,
      90_000,
      () => `${replied()} of ${commands.length} replies`,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    await Promise.all(users.map((c) => c.close()));
    console.log(`cluster failover: ${JSON.stringify(failovers)}`);
    expectEachAnsweredOnceInOrder(sandbox, commands);
    // The takeover is bounded by the 2 s lease; the first answer after it also waits for the backlog
    // that built up meanwhile, which depends on the machine's load: printed above, not asserted.
    for (const f of failovers)
      expect(f.takeoverMs, `${f.kind} takeover (kill → lease or partitions moved)`).toBeLessThan(
        5_000,
      );
  }, 240_000);
});
