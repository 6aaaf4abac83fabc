// The Redis storage backend and delivery store against a real redis-server: namespaces, expiry, the reply journal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storeOver } from "../../src/state/key-value/store.js";
import { openRedisBackend } from "../../src/state/key-value/redis.js";
import { RedisDeliveryStore } from "../../src/state/delivery/redis.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";

describe("redis storage", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it("keeps plugin values per namespace, shared by every process on the same Redis, and expires them", async () => {
    const a = storeOver(openRedisBackend({ url: redis.url }));
    const b = storeOver(openRedisBackend({ url: redis.url }));
    try {
      await a.namespace("karma").set("mia", 3);
      await a.namespace("karma").set("gus", 1, { ttlMs: 1_500 }); // long enough for a loaded machine
      await a.namespace("other").set("mia", "x");
      expect(await b.namespace("karma").get("mia")).toBe(3);
      expect(await b.namespace("karma").list()).toEqual(["gus", "mia"]);
      await new Promise((r) => setTimeout(r, 1_700));
      expect(await b.namespace("karma").get("gus")).toBeUndefined();
      expect(await b.namespace("karma").list()).toEqual(["mia"]);
      expect(await b.namespace("karma").delete("mia")).toBe(true);
      expect(await a.namespace("karma").get("mia")).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("journals replies per incoming message and reads them back after a restart of Redis", async () => {
    const store = new RedisDeliveryStore({
      redis: redis.client,
      prefix: "t:delivery:",
      capacity: 2,
    });
    const params = { type: "stream" as const, to: 1, topic: "t", content: "hi" };
    await store.saveWatermark({ lastHandledId: 10, handledAbove: [12] });
    await store.intend({ incomingId: 11, index: 0, params, floor: 11, at: 1 });
    await store.sent(11, 0, [20]);
    await store.intend({ incomingId: 11, index: 1, params, floor: 11, at: 2 });
    await store.intend({ incomingId: 12, index: 0, params, floor: 12, at: 3 });
    await redis.restart();
    const snapshot = await store.load();
    expect(snapshot.watermark).toEqual({ lastHandledId: 10, handledAbove: [12] });
    expect(snapshot.replies.map((r) => [r.incomingId, r.index, r.ids])).toEqual([
      [11, 0, [20]],
      [11, 1, undefined],
      [12, 0, undefined],
    ]);
    await store.intend({ incomingId: 13, index: 0, params, floor: 13, at: 4 });
    const trimmed = await store.load();
    expect(trimmed.replies.map((r) => r.incomingId)).toEqual([12, 13]);
    expect(await redis.client.exists("t:delivery:reply:11")).toBe(0);
  });

  it("refuses a damaged watermark, naming the key", async () => {
    await redis.client.set("bad:watermark", "{");
    await expect(
      new RedisDeliveryStore({ redis: redis.client, prefix: "bad:" }).load(),
    ).rejects.toThrow(/bad:watermark is damaged/);
  });
});
