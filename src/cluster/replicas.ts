// Sentinel mode's write durability: whether a write must wait for a replica (WAIT), and the primary's replica count, asked again when it may have changed.
import type { Redis } from "ioredis";

export interface ReplicaWaitOptions {
  /** How many replicas the connected server has now (ROLE; 0 when it is not a primary). */
  count(): Promise<number>;
  /** Redis `WAIT <replicas> <timeoutMs>`: how many replicas acknowledged the connection's writes. */
  wait(replicas: number, timeoutMs: number): Promise<number>;
  /** The longest a write waits for a replica. Default 500 ms. */
  timeoutMs?: number;
}

/**
 * Waits, after a write a node acts on, until a replica has it (a primary that dies takes only
 * what no replica had). The replica count is not trusted past an event that may have changed it:
 * after a reconnection (`forget`: a failover put another server behind the connection, usually a
 * promoted replica with no replica of its own) it is asked again before the next wait, and a
 * WAIT no replica answered in time has it asked again too. A stale count would make every write
 * wait the whole timeout on a primary with no replica, one after another on the connection (WAIT
 * blocks it), until heartbeats and lock renewals behind them came too late and the node lost
 * its lease and partitions.
 */
export class ReplicaWait {
  readonly #o: ReplicaWaitOptions;
  #known: number | undefined;
  /** Bumped by `forget`: a count asked before it does not count after it. */
  #generation = 0;
  #counting: Promise<number> | undefined;

  constructor(options: ReplicaWaitOptions) {
    this.#o = options;
  }

  /** The replica count as last seen (undefined: to be asked before the next wait). */
  get replicas(): number | undefined {
    return this.#known;
  }

  /** The server behind the connection may have changed (a reconnection): ask before waiting again. */
  forget(): void {
    this.#known = undefined;
    this.#counting = undefined;
    this.#generation++;
  }

  /** Asks the server for its replica count now (calls running at once share one question). */
  recount(): Promise<number> {
    const generation = this.#generation;
    const counting = (this.#counting ??= this.#o.count().then((n) => {
      if (this.#generation === generation) this.#known = n;
      return n;
    }));
    const done = () => {
      if (this.#counting === counting) this.#counting = undefined;
    };
    counting.then(done, done);
    return counting;
  }

  /** Resolves once a replica has this connection's writes, or at once when the primary has none. */
  async durable(): Promise<void> {
    const replicas = this.#known ?? (await this.recount());
    if (replicas === 0) return;
    const acked = await this.#o.wait(1, this.#o.timeoutMs ?? 500);
    // Not acknowledged in time: the replica may be gone (or lagging); count before the next wait.
    if (acked < 1) this.forget();
  }
}

/**
 * The `ReplicaWait` of a connection: ROLE counts the replicas, WAIT waits on them, and each
 * reconnection (the primary may be another server after a failover) has the count asked again.
 */
export function replicaWaitOn(redis: Redis): ReplicaWait {
  const replicas = new ReplicaWait({
    count: async () => {
      const role = (await redis.role()) as [string, unknown, unknown[]?];
      return role[0] === "master" ? (role[2]?.length ?? 0) : 0;
    },
    wait: (n, timeoutMs) => redis.wait(n, timeoutMs),
  });
  redis.on("ready", () => replicas.forget());
  return replicas;
}
