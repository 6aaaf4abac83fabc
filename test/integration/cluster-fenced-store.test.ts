// The cluster's fenced delivery store against a real redis-server: intents only while the partition lock is this node's, records shared.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FencedDeliveryStore } from "../../src/cluster/fenced-store.js";
import { withScripts } from "../../src/cluster/scripts.js";
import { RedisDeliveryStore } from "../../src/state/delivery/redis.js";
import { DeliveryFencedError } from "../../src/state/delivery/store.js";
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
    const store = (holder: string) =>
      new FencedDeliveryStore({
        redis: scripted,
        journal,
        ttlMs: 1_500,
        fenceOf: (id) => (id === 99 ? undefined : { lock: "f:lock:3", last: "f:last:3", holder }),
      });
    const a = store("1:node-a");
    const b = store("2:node-b");
    const params = { type: "stream" as const, to: 1, topic: "t", content: "hi" };
    const intent = { incomingId: 7, index: 0, params, floor: 7, at: 1 };
    try {
      await scripted.set("f:lock:3", "1:node-a");
      await scripted.set("f:last:3", "1:node-a");
      await a.intend(intent);
      await a.sent(7, 0, [70]);
      await expect(b.intend({ ...intent, index: 1 })).rejects.toBeInstanceOf(DeliveryFencedError);
      await scripted.set("f:lock:3", "2:node-b");
      await scripted.set("f:last:3", "2:node-b");
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

      // The lock lapsed (Redis away) and nobody took it: the intent resumes it, for its holder only.
      await scripted.del("f:lock:3");
      await expect(a.intend({ ...intent, index: 2 })).rejects.toThrow(/partition moved/);
      await b.intend({ ...intent, index: 2 });
      expect(await scripted.get("f:lock:3")).toBe("2:node-b");
      expect(await scripted.pttl("f:lock:3")).toBeGreaterThan(1_000);

      // Redis errs (a connection closing, a primary being demoted): the intent is tried again, not
      // given up (the guard would send without it) and not refused.
      let failures = 0;
      const flaky = new Proxy(scripted, {
        get: (target, key, receiver) =>
          key === "fencedIntend"
            ? (...args: unknown[]) =>
                failures++ < 2
                  ? Promise.reject(new Error("Connection is closed."))
                  : (target.fencedIntend as (...a: unknown[]) => Promise<number>)(...args)
            : Reflect.get(target, key, receiver),
      });
      const retries: number[] = [];
      const c = new FencedDeliveryStore({
        redis: flaky,
        journal,
        ttlMs: 1_500,
        fenceOf: () => ({ lock: "f:lock:3", last: "f:last:3", holder: "2:node-b" }),
        onRetry: (_error, attempt) => retries.push(attempt),
      });
      await c.intend({ ...intent, index: 3 });
      expect(retries).toEqual([0, 1]);
      expect((await c.recordsOf(7)).map((r) => r.index)).toContain(3);
    } finally {
      scripted.disconnect();
    }
  });

  it("does not let a reply go out after a slow step once the lock may have moved (cut off right after the intent)", async () => {
    const scripted = withScripts(redis.client.duplicate());
    const journal = new RedisDeliveryStore({ redis: scripted, prefix: "g:delivery:", capacity: 1 });
    const fence = { lock: "g:lock:1", last: "g:last:1", holder: "1:node-a" };
    let clock = 0;
    let slowSteps = 0;
    const store = new FencedDeliveryStore({
      redis: scripted,
      journal,
      ttlMs: 1_000,
      now: () => clock,
      fenceOf: () => fence,
      // The step after the fenced write stalls past the lock's TTL (the node was cut off from Redis
      // just after it answered) and meanwhile another node takes the partition.
      durable: async () => {
        if (slowSteps++ > 0) return;
        clock += 1_200;
        await scripted.set("g:lock:1", "2:node-b");
        await scripted.set("g:last:1", "2:node-b");
      },
    });
    const params = { type: "stream" as const, to: 1, topic: "t", content: "hi" };
    try {
      await scripted.set("g:lock:1", "1:node-a");
      await scripted.set("g:last:1", "1:node-a");
      // Before: the intent resolved and the reply went out beside the new owner's.
      await expect(
        store.intend({ incomingId: 8, index: 0, params, floor: 8, at: 1 }),
      ).rejects.toBeInstanceOf(DeliveryFencedError);

      // A quick intent extends the lock by its TTL, and the journal is trimmed beside it.
      await scripted.set("g:lock:1", "1:node-a", "PX", 200);
      await scripted.set("g:last:1", "1:node-a");
      await store.intend({ incomingId: 9, index: 0, params, floor: 9, at: 1 });
      await store.intend({ incomingId: 10, index: 0, params, floor: 10, at: 1 });
      expect(await scripted.pttl("g:lock:1")).toBeGreaterThan(500);
      for (let n = 0; (await scripted.zcard(journal.indexKey)) > 1; n++) {
        if (n > 100) throw new Error("the journal was not trimmed within 1 s");
        await new Promise((r) => setTimeout(r, 10));
      }
    } finally {
      scripted.disconnect();
    }
  });
});
