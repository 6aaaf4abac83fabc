// Cluster mode e2e: 3 real node processes on one Redis; the leader and a worker are SIGKILLed mid-stream.
import { afterAll, describe, expect, it } from "vitest";
import { partitionOf } from "../../src/cluster/partition.js";
import { waitUntil } from "../chaos/helpers.js";
import {
  killNode,
  startCluster,
  streamCommands,
  type CommandStream,
  type TestCluster,
} from "../helpers/cluster.js";

const COMMANDS = Number(process.env.CLUSTER_COMMANDS ?? 2_000);
const USERS = 20;
const TOPICS = 40;
const PARTITIONS = 16;
/** Commands each user may have unanswered at once (the stream keeps pace with the cluster). */
const WINDOW = 3;

describe("cluster: 3 nodes, SIGKILL of the leader twice and a worker twice", () => {
  let cluster: TestCluster | undefined;
  afterAll(async () => {
    await cluster?.close();
  });

  it("answers every command exactly once, in per-topic order, and fails over within 5 s", async () => {
    cluster = await startCluster({ nodes: 3 });
    const { sandbox } = cluster;
    const general = sandbox.realm.channelByName("general")!;
    const partitionOfTopic = (topic: string) =>
      partitionOf(`channel:${general.streamId}:${topic}`, PARTITIONS);
    const stream: CommandStream = streamCommands(sandbox, {
      count: COMMANDS,
      users: USERS,
      topics: TOPICS,
      window: WINDOW,
    });
    const failovers: { kind: string; failoverMs: number; firstAnswered: number }[] = [];

    /**
     * Failover time: from the kill to the first answer to a command *sent after the kill* that the
     * victim's share covers (leader: every conversation, since nothing sent after the kill reaches a
     * worker until a new leader publishes it; worker: a conversation of a partition it held).
     */
    const firstAnswerAfter = (killedAt: number, partitions: Set<number> | undefined) => {
      let best: { ms: number; id: number } | undefined;
      for (const c of stream.commands) {
        if (c.sentAt < killedAt) continue;
        if (partitions && !partitions.has(partitionOfTopic(c.topic))) continue;
        const at = stream.answeredAt.get(c.id);
        if (at !== undefined && (!best || at - killedAt < best.ms))
          best = { ms: at - killedAt, id: c.id };
      }
      return best;
    };

    const killAndMeasure = async (kind: "leader" | "worker", round: number) => {
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
      const held = new Set([...owners].filter(([, pid]) => pid === victim!.pid).map(([p]) => p));
      // A probe in one of the victim's partitions, so one is sure to be sent after the kill.
      let topic = `probe ${kind} ${round}`;
      for (let i = 0; held.size > 0 && !held.has(partitionOfTopic(topic)); i++)
        topic = `probe ${kind} ${round} ${i}`;
      const killedAt = Date.now();
      await killNode(victim!);
      await stream.send(round, topic);
      const share = kind === "leader" ? undefined : held;
      await waitUntil(
        () => firstAnswerAfter(killedAt, share) !== undefined,
        30_000,
        () => `no command sent after killing the ${kind} was answered`,
      );
      const first = firstAnswerAfter(killedAt, share)!;
      failovers.push({ kind, failoverMs: first.ms, firstAnswered: first.id });
      await cluster!.spawnNode();
    };

    const kills: ["leader" | "worker", number][] = [
      ["leader", 0.15],
      ["worker", 0.3],
      ["leader", 0.45],
      ["worker", 0.6],
    ];
    for (const [round, [kind, at]] of kills.entries()) {
      await waitUntil(
        () => stream.replied() >= stream.total * at,
        120_000,
        () => `${stream.replied()} replies before kill ${round}`,
      );
      await killAndMeasure(kind, round);
    }
    await stream.finish();
    console.log(
      `cluster failover (${stream.commands.length} commands): ${JSON.stringify(failovers)}`,
    );
    for (const f of failovers)
      expect(f.failoverMs, `${f.kind} kill → first command sent after it answered`).toBeLessThan(
        5_000,
      );
  }, 300_000);
});
