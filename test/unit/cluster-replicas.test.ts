// Unit: Sentinel mode's replica waits: none on a primary without a replica, the count asked again after a reconnection or an unanswered WAIT.
import { describe, expect, it } from "vitest";
import { ReplicaWait } from "../../src/cluster/replicas.js";

/** A fake server behind the connection: its replica count, and the WAITs it was asked. */
interface FakeServer {
  replicas: number;
  roles: number;
  waits: number[];
  wait: ReplicaWait;
}

function server(replicas: number): FakeServer {
  const s: FakeServer = {
    replicas,
    roles: 0,
    waits: [] as number[],
    wait: new ReplicaWait({
      count: async (): Promise<number> => {
        s.roles++;
        return s.replicas;
      },
      wait: async (n: number, timeoutMs: number): Promise<number> => {
        s.waits.push(timeoutMs);
        return Math.min(n, s.replicas);
      },
    }),
  };
  return s;
}

describe("ReplicaWait", () => {
  it("waits for a replica while the primary has one, asking the count once", async () => {
    const s = server(1);
    await s.wait.durable();
    await s.wait.durable();
    expect(s.waits).toEqual([500, 500]);
    expect(s.roles).toBe(1);
  });

  it("does not wait on a primary with no replica", async () => {
    const s = server(0);
    await s.wait.durable();
    await s.wait.durable();
    expect(s.waits).toEqual([]);
  });

  it("after a reconnection (a failover: the promoted replica has none) no write waits the timeout", async () => {
    const s = server(1);
    await s.wait.durable();
    s.replicas = 0; // the primary died; the connection now reaches the promoted replica
    s.wait.forget();
    for (let i = 0; i < 10; i++) await s.wait.durable();
    // A stale count would have every one of these ten WAITs block the connection its whole timeout.
    expect(s.waits).toEqual([500]);
    expect(s.wait.replicas).toBe(0);
  });

  it("a WAIT no replica answered has the count asked again before the next one", async () => {
    const s = server(1);
    await s.wait.durable();
    s.replicas = 0; // the replica went away without a reconnection of ours
    await s.wait.durable(); // times out (0 acknowledged)
    for (let i = 0; i < 5; i++) await s.wait.durable();
    expect(s.waits).toHaveLength(2);
    expect(s.roles).toBe(2);
  });

  it("a count asked before a reconnection does not stand after it", async () => {
    let answer!: (n: number) => void;
    const wait = new ReplicaWait({
      count: () => new Promise<number>((resolve) => (answer = resolve)),
      wait: async () => 0,
    });
    const before = wait.recount();
    wait.forget();
    answer(2);
    await before;
    expect(wait.replicas).toBeUndefined();
  });

  it("a replica back since is seen by the next count", async () => {
    const s = server(0);
    await s.wait.durable();
    s.replicas = 1;
    await s.wait.recount();
    await s.wait.durable();
    expect(s.waits).toEqual([500]);
  });
});
