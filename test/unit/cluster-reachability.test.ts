// Cluster logic without Redis: a late or failed heartbeat closes the handlers' gate and the next success opens it; stream entry order.
import { describe, expect, it } from "vitest";
import { Reachability } from "../../src/cluster/reachability.js";
import { compareEntryIds } from "../../src/cluster/worker.js";

describe("cluster reachability", () => {
  it("closes the gate on a heartbeat that hangs, waits for that same call, and opens on its answer", async () => {
    let now = 1_000;
    const changes: [boolean, number][] = [];
    const link = new Reachability({
      waitMs: 20,
      now: () => now,
      onChange: (reachable, awayMs) => changes.push([reachable, awayMs]),
    });
    expect((await link.beat(async () => ["a"])).answer).toEqual(["a"]);
    let answer!: (members: string[]) => void;
    let calls = 0;
    const hanging = () => {
      calls++;
      return new Promise<string[]>((resolve) => (answer = resolve));
    };
    await expect(link.beat(hanging)).rejects.toThrow(/did not answer a heartbeat within 20 ms/);
    expect(link.reachable).toBe(false);
    expect(link.link()).toMatchObject({
      redis: "unreachable",
      unreachableSince: 1_000,
      outages: 0,
    });
    let opened = false;
    const gate = link.ready().then(() => (opened = true));
    now += 5_000;
    await expect(link.beat(hanging)).rejects.toThrow(/did not answer/);
    expect(calls).toBe(1); // the hanging call is waited for, not sent again
    expect(opened).toBe(false);
    const next = link.beat(hanging);
    answer(["a", "b"]);
    expect(await next).toEqual({ answer: ["a", "b"], awayMs: 5_000 });
    await gate;
    expect(opened).toBe(true);
    expect(link.link()).toEqual({ redis: "reachable", outages: 1, lastOutageMs: 5_000 });
    expect(changes).toEqual([
      [false, 0],
      [true, 5_000],
    ]);
  });

  it("marks Redis unreachable on a failed heartbeat, and reports no time away before the first", async () => {
    const link = new Reachability({ waitMs: 1_000, now: () => 0 });
    expect(link.sinceBeatMs).toBe(0);
    await expect(link.beat(() => Promise.reject(new Error("ECONNREFUSED")))).rejects.toThrow(
      "ECONNREFUSED",
    );
    expect(link.reachable).toBe(false);
    await link.beat(async () => 1);
    expect(link.reachable).toBe(true);
  });
});

describe("stream entry order", () => {
  it("orders entry IDs by time, then sequence (not as text)", () => {
    const ids = ["1700000000010-2", "1700000000009-10", "1700000000010-10", "1700000000010-0"];
    expect([...ids].sort(compareEntryIds)).toEqual([
      "1700000000009-10",
      "1700000000010-0",
      "1700000000010-2",
      "1700000000010-10",
    ]);
  });
});
