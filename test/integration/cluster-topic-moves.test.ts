// Topic moves in cluster mode: two in-process nodes over one redis-server; a topic renamed into the other node's partition keeps its follow and session there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBot, definePlugin, type Bot, type MessageContext } from "../../src/index.js";
import { createClient } from "../../src/client/client.js";
import { ClusterNode } from "../../src/cluster/node.js";
import { assignedTo, partitionOf } from "../../src/cluster/partition.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { createStore } from "../../src/state/key-value/create.js";
import type { KeyValueStore } from "../../src/state/key-value/store.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";
import { sandboxPeople, type SandboxPeople } from "../helpers/sandbox-people.js";
import { until } from "../helpers/bot.js";

const PARTITIONS = 16;

/** Follows a topic on `!watch` and counts, in the topic's session, what it hears there; says which node heard. */
const keeper = (node: string) =>
  definePlugin({
    name: "keeper",
    setup(bot) {
      const tally = bot.session<{ heard: number }>();
      bot.command("watch", { description: "Follow this topic" }, async (ctx) => {
        await ctx.follow({ idleMinutes: 30 });
        await tally.of(ctx).set({ heard: 0 });
        await ctx.reply("watching");
      });
      bot.followed(async (ctx: MessageContext) => {
        if (ctx.addressedVia !== null) return;
        const { heard } = await tally.of(ctx).update((s) => ({ heard: (s?.heard ?? 0) + 1 }));
        await ctx.reply(`heard ${heard} on ${node}`);
      });
    },
  });

interface RunningNode {
  name: string;
  node: ClusterNode;
  bot: Bot;
  storage: KeyValueStore;
}

describe("topic moves in cluster mode", () => {
  let redis: TestRedis;
  let sandbox: Sandbox;
  let people: SandboxPeople;
  const nodes: RunningNode[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    sandbox = await startSandbox();
    people = sandboxPeople(() => sandbox);
  });
  afterAll(async () => {
    for (const n of nodes) {
      await n.bot.stop().catch(() => undefined);
      await n.node.stop().catch(() => undefined);
      await n.storage.close().catch(() => undefined);
    }
    await people?.close();
    await sandbox?.close();
    await redis?.close();
  });

  async function startNode(name: string): Promise<RunningNode> {
    const api = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
    });
    const node = new ClusterNode({ url: redis.url, api, node: name, partitions: PARTITIONS });
    const storage = await createStore({ type: "redis", url: redis.url });
    const bot = createBot({
      client: api,
      events: node,
      attach: node.attach,
      delivery: node.delivery,
      storage,
      plugins: [keeper(name)],
      handleSignals: false,
    });
    await bot.start();
    const running = { name, node, bot, storage };
    nodes.push(running);
    return running;
  }

  const say = (topic: string, content: string) =>
    people.as("mia").messages.send({ type: "channel", to: "general", topic, content });
  const botSaid = (topic: string) =>
    sandbox.realm.messages
      .filter((m) => m.senderId === sandbox.bot.userId && m.topic === topic)
      .map((m) => m.content);

  it("a follow and its session move to the new topic's partition, on the other node", async () => {
    const [a, b] = [await startNode("node-a"), await startNode("node-b")];
    await until(
      () =>
        a.node.status().partitions.length + b.node.status().partitions.length === PARTITIONS &&
        a.node.status().partitions.length > 0 &&
        b.node.status().partitions.length > 0,
      "both nodes to hold their share of the partitions",
      20_000,
    );
    const streamId = sandbox.realm.channelByName("general")!.streamId;
    const members = ["node-a", "node-b"];
    const onA = new Set(assignedTo("node-a", members, PARTITIONS));
    const owner = (topic: string) =>
      onA.has(partitionOf(`channel:${streamId}:${topic}`, PARTITIONS)) ? "node-a" : "node-b";
    const topics = Array.from({ length: 40 }, (_, i) => `topic ${i}`);
    const from = topics.find((t) => owner(t) === "node-a")!;
    const to = topics.find((t) => owner(t) === "node-b")!;

    await say(from, "!watch");
    await until(() => botSaid(from).includes("watching"), "the follow", 10_000);
    await say(from, "one");
    await until(() => botSaid(from).some((c) => c.startsWith("heard 1")), "heard 1", 10_000);
    expect(botSaid(from)).toEqual(["watching", "heard 1 on node-a"]);

    const last = sandbox.realm.messages.filter((m) => m.topic === from).at(-1)!;
    await people.as("mia").messages.update({
      message_id: last.id,
      topic: to,
      propagate_mode: "change_all",
      send_notification_to_new_thread: false,
    });
    await say(to, "two");
    await until(() => botSaid(to).some((c) => c.startsWith("heard 2")), "heard 2", 10_000);
    expect(botSaid(to).filter((c) => c.startsWith("heard"))).toEqual([
      "heard 1 on node-a",
      "heard 2 on node-b",
    ]);
    const follows = await a.storage.namespace("topicbot:follows").list();
    expect(follows).toEqual([`channel:${streamId}:${to}`]);
  }, 60_000);
});
