// The worker role: consumes the partitions this node holds (Redis Streams consumer group), one entry at a time per partition.
import type { Redis } from "ioredis";
import { sleep } from "../client/backoff.js";
import type { AnyEvent } from "../api/events.js";
import type { Logger } from "../log/logger.js";
import type { ClusterKeys } from "./keys.js";
import { fencedRead, type Fence, type ScriptedRedis } from "./scripts.js";

export interface WorkerOptions {
  redis: ScriptedRedis;
  /** A connection of its own for blocking reads. */
  reader: Redis;
  keys: ClusterKeys;
  /** This node's name: its consumer name and partition-lock value. */
  node: string;
  /** Handles one published event (its replies fenced by `fence`); resolves when the next one of its partition may start. */
  handle(event: AnyEvent, partition: number, fence: Fence): Promise<void>;
  log: Logger;
  /** How long a blocking read waits before it looks at the partition set again. Default 300 ms. */
  blockMs?: number;
  /** The partition locks' TTL (a fenced step sets a lapsed lock nobody took again for this long). */
  ttlMs: number;
  /** Resolves when entries may be handled (Redis reachable); awaited before each entry. */
  ready(): Promise<void>;
  /** How often every held partition's pending entries are compared with what its lane holds. Default 3 s. */
  reconcileMs?: number;
}

type Entry = [id: string, fields: string[]];

/** One held partition: entries read but not yet handled, run strictly in order. */
interface Lane {
  fence: Fence;
  queue: Entry[];
  /** Entries handled and acknowledged lately (a claim racing an acknowledgement must not queue them again). */
  done: Set<string>;
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
const DONE_MEMORY = 1_024;

/** Stream entry IDs (`<ms>-<seq>`) in stream order. */
export function compareEntryIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split("-").map(Number);
  const [bm = 0, bs = 0] = b.split("-").map(Number);
  return am - bm || as - bs;
}

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

  /** Starts consuming a partition whose lock this node just took (`fence.holder` its value). */
  async take(partition: number, fence: Fence): Promise<void> {
    const old = this.#lanes.get(partition);
    if (old && !old.leaving) return;
    // Taken back while still being given up (a lock lost and won again): let that finish first.
    if (old) await old.left;
    if (this.#lanes.has(partition)) return;
    const { redis, keys } = this.#o;
    const stream = keys.partition(partition);
    await ensureGroup(redis, stream, keys.group);
    const lane: Lane = {
      fence,
      queue: [],
      done: new Set(),
      leaving: false,
      running: Promise.resolve(),
      handled: 0,
    };
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
   * Entries pending in the group but in no lane (a read whose answer was lost when Redis restarted
   * or the connection broke mid-call, an entry left pending by an earlier process of this node's
   * name) are claimed by the partition's owner (its lock confirmed first) and queued by their stream ID, so a lapsed entry
   * runs before newer work of its partition. Runs after any failed read and every `reconcileMs`;
   * only partitions whose pending count exceeds what their lane holds are claimed.
   */
  async #reconcile(partitions: number[]): Promise<void> {
    const { redis, keys } = this.#o;
    const pipeline = redis.pipeline();
    for (const p of partitions) pipeline.xpending(keys.partition(p), keys.group);
    const answers = (await pipeline.exec()) ?? [];
    for (const [i, partition] of partitions.entries()) {
      const [error, summary] = answers[i] ?? [];
      if (error) continue;
      const pending = Number((summary as [number] | undefined)?.[0] ?? 0);
      const lane = this.#lanes.get(partition);
      if (!lane || lane.leaving) continue;
      if (pending <= lane.queue.length + (lane.current ? 1 : 0)) continue;
      // Not a partition that moved while Redis was away (the tick has yet to see it): its pending
      // entries are the new owner's.
      const { lock, last, holder } = lane.fence;
      if ((await redis.hold(lock, last, this.#o.node, holder, this.#o.ttlMs)) === null) continue;
      const lost = (await this.#claimPending(partition)).filter(
        ([id]) => id !== lane.current && !lane.done.has(id) && !lane.queue.some(([q]) => q === id),
      );
      if (lost.length === 0 || lane.leaving || this.#lanes.get(partition) !== lane) continue;
      this.#o.log.info(
        { partition, entries: lost.length },
        "cluster: taking up pending entries no lane held",
      );
      lane.queue.push(...lost);
      lane.queue.sort(([a], [b]) => compareEntryIds(a, b));
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
        await this.#o.ready(); // Redis unreachable: hold the work until it is back
        if (lane.leaving) break;
        const [id, fields] = lane.queue.shift()!;
        lane.current = id;
        const payload = fields[fields.indexOf("e") + 1];
        this.#o.log.debug({ partition, entry: id }, "cluster: handling an entry");
        if (payload !== undefined) {
          try {
            await this.#o.handle(JSON.parse(payload) as AnyEvent, partition, lane.fence);
          } catch (error) {
            this.#o.log.error(
              { err: error, partition, entry: id },
              "cluster: handling a published event failed",
            );
          }
        }
        const ours = await this.#ack(partition, lane, id);
        lane.done.add(id);
        if (lane.done.size > DONE_MEMORY) lane.done.delete(lane.done.values().next().value!);
        lane.current = undefined;
        lane.handled++;
        if (!ours) {
          // Someone else owns the partition now and claimed this entry: handle no more of it here.
          this.#o.log.warn({ partition, entry: id }, "cluster: partition moved while handling");
          lane.queue.length = 0;
        }
      }
    });
  }

  /**
   * Acknowledges an entry: true, or false when the partition is someone else's (the entry stays
   * pending for them). Tried until Redis answers, however long it is away: the entry was handled,
   * and dropping the acknowledgement would have it handled again.
   */
  async #ack(partition: number, lane: Lane, id: string): Promise<boolean> {
    const { redis, keys } = this.#o;
    const { lock, last, holder } = lane.fence;
    for (let attempt = 0; ; attempt++) {
      try {
        const done = await redis.fencedAck(
          lock,
          last,
          keys.partition(partition),
          holder,
          this.#o.ttlMs,
          keys.group,
          id,
        );
        return done === 1;
      } catch (error) {
        if (attempt % 25 === 0)
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
    let reconciledAt = Date.now();
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
        if (this.#readLost || Date.now() - reconciledAt >= (this.#o.reconcileMs ?? 3_000)) {
          this.#readLost = false;
          reconciledAt = Date.now();
          await this.#reconcile(open);
        }
        const answers = await fencedRead(
          redis,
          open.map((p) => [this.#lanes.get(p)!.fence, keys.partition(p)]),
          node,
          keys.group,
          READ_COUNT,
          this.#o.ttlMs,
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
