// Cluster pacing against a real redis-server and a rate-limited sandbox: two nodes' clients stay within one budget.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { createClient, type CallEvent } from "../../src/client/client.js";
import { RedisPacingBudget } from "../../src/cluster/pacing.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";

const LIMIT = 10;
const WINDOW_SECONDS = 1;
const SENDS_PER_NODE = 24;
/** Sends each node has in flight at once (several handlers replying). */
const PER_NODE_CONCURRENCY = 3;

describe("cluster pacing", () => {
  let redis: TestRedis;
  let sandbox: Sandbox;
  beforeAll(async () => {
    redis = await startRedis();
    sandbox = await startSandbox({ rateLimit: { requests: LIMIT, windowSeconds: WINDOW_SECONDS } });
  });
  afterAll(async () => {
    await sandbox?.close();
    await redis?.close();
  });

  it("keeps two nodes of one bot account within the server's one budget (no request refused)", async () => {
    const refused: string[] = [];
    const node = (name: string) => {
      const connection = new Redis(redis.url);
      const client = createClient({
        site: sandbox.url,
        email: sandbox.bot.email,
        apiKey: sandbox.bot.apiKey,
        pacing: {
          budget: new RedisPacingBudget({ redis: connection, account: sandbox.bot.email }),
        },
        onCall: (event: CallEvent) => {
          if (event.type === "response" && event.status === 429) refused.push(name);
        },
      });
      return { name, connection, client };
    };
    const nodes = [node("a"), node("b")];
    const started = Date.now();
    try {
      await Promise.all(
        nodes.flatMap(({ name, client }) =>
          Array.from({ length: PER_NODE_CONCURRENCY }, async (_, lane) => {
            for (let i = lane; i < SENDS_PER_NODE; i += PER_NODE_CONCURRENCY)
              await client.messages.send({
                type: "channel",
                to: "general",
                topic: "paced",
                content: `${name} ${i}`,
              });
          }),
        ),
      );
    } finally {
      for (const { client, connection } of nodes) {
        await client.close();
        connection.disconnect();
      }
    }
    const sent = sandbox.realm.messages.filter(
      (m) => m.senderId === sandbox.bot.userId && m.topic === "paced",
    );
    expect(sent).toHaveLength(2 * SENDS_PER_NODE);
    expect(refused, "requests the server refused with 429 (over the one budget)").toEqual([]);
    // The pacing held the pair to the limit: 48 sends at 10 per second take several windows.
    expect(Date.now() - started).toBeGreaterThan(((2 * SENDS_PER_NODE) / LIMIT - 1) * 1000 * 0.9);
  }, 60_000);
});
