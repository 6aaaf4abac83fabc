// The cluster's fenced delivery store against a real redis-server: intents only while the partition lock is this node's, records shared.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FencedDeliveryStore } from "../../src/cluster/fenced-store.js";
import { withScripts } from "../../src/cluster/scripts.js";
import { RedisDeliveryStore } from "../../src/storage/redis-delivery.js";
import { DeliveryFencedError } from "../../src/runtime/delivery/store.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";

describe("cluster fenced delivery store", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it("refuses an intent once the message's partition lock is another node's, and shares records", async () => {
    const scripted = withScripts(redis.client.duplicate());
    const journal = new RedisDeliveryStore({ redis: scripted, prefix: "f:delivery:" });
    const store = (node: string) =>
      new FencedDeliveryStore({
        redis: scripted,
        journal,
        node,
        lockOf: (id) => (id === 99 ? undefined : "f:lock:3"),
      });
    const a = store("node-a");
    const b = store("node-b");
    const params = { type: "stream" as const, to: 1, topic: "t", content: "hi" };
    const intent = { incomingId: 7, index: 0, params, floor: 7, at: 1 };
    try {
      await scripted.set("f:lock:3", "node-a");
      await a.intend(intent);
      await a.sent(7, 0, [70]);
      await expect(b.intend({ ...intent, index: 1 })).rejects.toBeInstanceOf(DeliveryFencedError);
      await scripted.set("f:lock:3", "node-b");
      await expect(a.intend({ ...intent, index: 1 })).rejects.toThrow(/partition moved/);
      await b.intend({ ...intent, index: 1 });
      expect((await b.recordsOf(7)).map((r) => [r.index, r.ids])).toEqual([
        [0, [70]],
        [1, undefined],
      ]);
      await expect(a.intend({ ...intent, incomingId: 99 })).rejects.toThrow(
        /did not take it from a partition/,
      );
      expect(await a.load()).toEqual({ watermark: undefined, replies: [] });
    } finally {
      scripted.disconnect();
    }
  });
});
