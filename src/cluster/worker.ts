// The worker role: consumes the partitions this node holds (Redis Streams consumer group), one entry at a time per partition.
import type { Redis } from "ioredis";
import { sleep } from "../client/backoff.js";
import type { AnyEvent } from "../api/events.js";
import type { Logger } from "../log/logger.js";
import type { ClusterKeys } from "./keys.js";
import { fencedRead, type ScriptedRedis } from "./scripts.js";

export interface WorkerOptions {
  redis: ScriptedRedis;
  /** A connection of its own for blocking reads. */
  reader: Redis;
  keys: ClusterKeys;
  /** This node's name: its consumer name and partition-lock value. */
  node: string;
  /** Handles one published event; resolves when the next one of its partition may start. */
  handle(event: AnyEvent, partition: number): Promise<void>;
  log: Logger;
  /** How long a blocking read waits before it looks at the partition set again. Default 300 ms. */
  blockMs?: number;
}

type Entry = [id: string, fields: string[]];

/** One held partition: entries read but not yet handled, run strictly in order. */
interface Lane {
  queue: Entry[];
  leaving: boolean;
  /** The entry being handled. */
  current?: string;
  /** Set by `give`: resolves once the lane is gone. */
  left?: Promise<void>;
  running: Promise<void>;
  handled: number;
}

const READ_COUNT = 32;
const QUEUE_LIMIT = 64;

/**
 * Runs the partitions it is given. On `take`, entries still pending from the previous owner are
 * claimed first (XAUTOCLAIM), so a moved partition resumes where the old owner acknowledged; then
 * new entries come from a fenced read (a Lua step that reads only partitions whose lock is still
 * ours, so an old owner gets no entry after the new one claimed the pending ones). An entry is
 * acknowledged (and deleted) after its handler, only while the lock is still ours.
 */
export class Worker {
  readonly #o: WorkerOptions;
  readonly #lanes = new Map<number, Lane>();
  #reading: Promise<void> = Promise.resolve();
  #readSet = new Set<number>();
  #stopped = false;
  readonly #loop: Promise<void>;

  /**
   * A read may have delivered entries whose answer never arrived: set on a failed read and on each
   * reconnection (ioredis resends a call cut off by a disconnect, so the first answer is lost
   * without an error).
   */
  #readLost = false;

  constructor(options: WorkerOptions) {
    this.#o = options;
    options.redis.on("ready", () => (this.#readLost = true));
    this.#loop = this.#readLoop();
  }

  /** The partitions held now. */
  get partitions(): number[] {
    return [...this.#lanes.keys()].sort((a, b) => a - b);
  }

  /** True while a partition is being given up (its running entry finishing). */
  giving(partition: number): boolean {
    return this.#lanes.get(partition)?.leaving === true;
  }

  handled(partition: number): number {
    return this.#lanes.get(partition)?.handled ?? 0;
  }

  /** Starts consuming a partition whose lock this node just took. */
  async take(partition: number): Promise<void> {
    const old = this.#lanes.get(partition);
    if (old && !old.leaving) return;
    // Taken back while still being given up (a lock lost and won again): let that finish first.
    if (old) await old.left;
    if (this.#lanes.has(partition)) return;
    const { redis, keys } = this.#o;
    const stream = keys.partition(partition);
    await ensureGroup(redis, stream, keys.group);
    const lane: Lane = { queue: [], leaving: false, running: Promise.resolve(), handled: 0 };
    lane.queue.push(...(await this.#claimPending(partition)));
    this.#lanes.set(partition, lane);
    if (lane.queue.length > 0)
      this.#o.log.info(
        { partition, pending: lane.queue.length },
        "cluster: resuming a partition's unacknowledged entries",
      );
    this.#kick(partition, lane);
  }

  /** Every entry of the partition pending in the group (any consumer's), claimed for this node, in order. */
  async #claimPending(partition: number): Promise<Entry[]> {
    const { redis, keys, node } = this.#o;
    const out: Entry[] = [];
    let cursor = "0-0";
    do {
      const [next, entries] = (await redis.xautoclaim(
        keys.partition(partition),
        keys.group,
        node,
        0,
        cursor,
        "COUNT",
        500,
      )) as [string, (Entry | null)[]];
      for (const entry of entries) if (entry) out.push(entry);
      cursor = next;
    } while (cursor !== "0-0");
    return out;
  }

  /**
   * After a read whose answer was lost (Redis restarted or the connection broke mid-call), entries
   * it delivered are pending under this node but in no lane: they are claimed again and queued
   * after what the lane holds (they were delivered after it, so the order holds).
   */
  async #recoverLostReads(partitions: number[]): Promise<void> {
    for (const partition of partitions) {
      const lane = this.#lanes.get(partition);
      if (!lane || lane.leaving) continue;
      const known = new Set(lane.queue.map(([id]) => id));
      if (lane.current) known.add(lane.current);
      const lost = (await this.#claimPending(partition)).filter(([id]) => !known.has(id));
      if (lost.length === 0) continue;
      this.#o.log.info(
        { partition, entries: lost.length },
        "cluster: taking up entries a lost read delivered",
      );
      lane.queue.push(...lost);
      this.#kick(partition, lane);
    }
  }

  /** Stops consuming a partition: no more reads, the running entry finishes; the rest stay pending for the next owner. */
  async give(partition: number): Promise<void> {
    const lane = this.#lanes.get(partition);
    if (!lane) return;
    lane.left ??= (async () => {
      lane.leaving = true;
      lane.queue.length = 0;
      if (this.#readSet.has(partition)) await this.#reading;
      await lane.running;
      if (this.#lanes.get(partition) === lane) this.#lanes.delete(partition);
    })();
    await lane.left;
  }

  /** Stops reading and lets the running entries finish. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.partitions.map((p) => this.give(p)));
    await this.#loop;
  }

  #kick(partition: number, lane: Lane): void {
    lane.running = lane.running.then(async () => {
      while (!lane.leaving && lane.queue.length > 0) {
        const [id, fields] = lane.queue.shift()!;
        lane.current = id;
        const payload = fields[fields.indexOf("e") + 1];
        if (payload !== undefined) {
          try {
            await this.#o.handle(JSON.parse(payload) as AnyEvent, partition);
          } catch (error) {
            this.#o.log.error(
              { err: error, partition, entry: id },
              "cluster: handling a published event failed",
            );
          }
        }
        await this.#ack(partition, id); // the lock is ours until give() returns
        lane.current = undefined;
        lane.handled++;
      }
    });
  }

  async #ack(partition: number, id: string): Promise<void> {
    const { redis, keys, node } = this.#o;
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await redis.fencedAck(
          keys.partitionLock(partition),
          keys.partition(partition),
          node,
          keys.group,
          id,
        );
        return;
      } catch (error) {
        if (attempt === 0)
          this.#o.log.warn({ err: error, partition }, "cluster: could not acknowledge; retrying");
        await sleep(200);
      }
    }
  }

  /**
   * Reads new entries with the fenced read (nothing from a partition whose lock moved away), and
   * between reads waits on a plain blocking XREAD for anything newer (it delivers nothing itself).
   */
  async #readLoop(): Promise<void> {
    const { redis, reader, keys, node } = this.#o;
    while (!this.#stopped) {
      const open = [...this.#lanes]
        .filter(([, l]) => !l.leaving && l.queue.length < QUEUE_LIMIT)
        .map(([p]) => p);
      if (open.length === 0) {
        await sleep(50);
        continue;
      }
      this.#readSet = new Set(open);
      let done!: () => void;
      this.#reading = new Promise<void>((resolve) => (done = resolve));
      let waitFrom: [stream: string, newest: string][] = [];
      try {
        if (this.#readLost) {
          this.#readLost = false;
          await this.#recoverLostReads(open);
        }
        const answers = await fencedRead(
          redis,
          open.map((p) => [keys.partitionLock(p), keys.partition(p)]),
          node,
          keys.group,
          READ_COUNT,
        );
        let got = 0;
        answers.forEach((answer, i) => {
          if (!answer) return; // the lock moved: the next tick stops this partition
          const [stream, entries, newest] = answer;
          const lane = this.#lanes.get(open[i]!);
          if (entries && entries.length > 0 && lane && !lane.leaving) {
            got += entries.length;
            lane.queue.push(...entries);
            this.#kick(open[i]!, lane);
          }
          waitFrom.push([stream, newest]);
        });
        if (got > 0) waitFrom = [];
      } catch (error) {
        waitFrom = [];
        this.#readLost = true;
        if (this.#stopped) break;
        if (String(error).includes("NOGROUP")) {
          for (const p of open)
            await ensureGroup(redis, keys.partition(p), keys.group).catch(() => undefined);
        } else {
          this.#o.log.warn({ err: error }, "cluster: reading partitions failed; retrying");
          await sleep(500);
        }
      } finally {
        this.#readSet = new Set();
        done();
      }
      if (waitFrom.length > 0)
        await reader
          .xread(
            "COUNT",
            1,
            "BLOCK",
            this.#o.blockMs ?? 300,
            "STREAMS",
            ...waitFrom.map(([stream]) => stream),
            ...waitFrom.map(([, newest]) => newest),
          )
          .catch(() => sleep(100));
    }
  }
}

/** Creates the consumer group of a partition stream (and the stream) if missing. */
export async function ensureGroup(redis: Redis, stream: string, group: string): Promise<void> {
  try {
    await redis.xgroup("CREATE", stream, group, "0", "MKSTREAM");
  } catch (error) {
    if (!String(error).includes("BUSYGROUP")) throw error;
  }
}
