// The partition-lock scripts against a real redis-server: take, renew, resume after a lapse, and no resume once someone else took it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withScripts, type ScriptedRedis } from "../../src/cluster/scripts.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";

describe("cluster partition locks", () => {
  let redis: TestRedis;
  let r: ScriptedRedis;
  beforeAll(async () => {
    redis = await startRedis();
    r = withScripts(redis.client.duplicate());
  });
  afterAll(async () => {
    r?.disconnect();
    await redis?.close();
  });

  const lock = "l:lock:0";
  const last = "l:last:0";

  it("takes a free lock with a growing token, renews it, and refuses it to others", async () => {
    const a = await r.hold(lock, last, "node-a", "", 1_500);
    expect(a).toBe("1:node-a");
    expect(await r.hold(lock, last, "node-b", "", 1_500)).toBeNull();
    expect(await r.hold(lock, last, "node-a", a!, 1_500)).toBe(a);
    expect(await r.hold(lock, last, "node-b", "1:node-b", 1_500)).toBeNull();
  });

  it("resumes a lapsed lock for the holder nobody replaced, and acknowledges under it", async () => {
    await r.del(lock);
    await r.xgroup("CREATE", "l:stream", "g", "0", "MKSTREAM");
    const id = (await r.xadd("l:stream", "*", "e", "{}"))!;
    await r.xreadgroup("GROUP", "g", "node-a", "STREAMS", "l:stream", ">");
    expect(await r.fencedAck(lock, last, "l:stream", "1:node-a", 1_500, "g", id)).toBe(1);
    expect(await r.get(lock)).toBe("1:node-a");
    expect(await r.xlen("l:stream")).toBe(0);
  });

  it("does not resume once another node took the lock, even after that node let it go", async () => {
    await r.del(lock);
    const b = await r.hold(lock, last, "node-b", "", 1_500);
    expect(b).toBe("2:node-b");
    expect(await r.letGo(lock, last, b!)).toBe(1);
    expect(await r.get(lock)).toBeNull();
    expect(await r.hold(lock, last, "node-a", "1:node-a", 1_500)).toBeNull();
    expect(await r.hold(lock, last, "node-b", b!, 1_500)).toBeNull(); // let go: not resumable
    expect(await r.fencedAck(lock, last, "l:stream", "1:node-a", 1_500, "g", "0-1")).toBe(0);
    expect(await r.hold(lock, last, "node-a", "", 1_500)).toBe("3:node-a");
  });

  it("lets a restarted process of the same node name take its own lock over with a new token", async () => {
    expect(await r.hold(lock, last, "node-a", "", 1_500)).toBe("4:node-a");
    expect(await r.hold(lock, last, "node-x-a", "", 1_500)).toBeNull();
  });
});
