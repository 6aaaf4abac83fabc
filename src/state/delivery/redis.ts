// The delivery store on Redis: the watermark in one key, the reply journal one hash per incoming message (O(1) per reply).
import type { Redis } from "ioredis";
import type {
  DeliverySnapshot,
  DeliveryState,
  DeliveryStore,
  ReplyIntent,
  ReplyRecord,
} from "./store.js";

export interface RedisDeliveryStoreOptions {
  redis: Redis;
  /** Prefix of every key. Default `topicbot:delivery:`. */
  prefix?: string;
  /** Incoming messages whose replies are remembered. Default 500. */
  capacity?: number;
}

/**
 * `DeliveryStore` on Redis. Keys: `<prefix>watermark` (JSON), `<prefix>reply:<incomingId>` (a hash:
 * `intent:<n>` and `ids:<n>`), `<prefix>replies` (a sorted set of incoming IDs, to load and trim).
 * `intend` resolves once Redis acknowledged the write; it survives a Redis restart when Redis
 * persists with `appendonly yes` and `appendfsync always` (docs/cluster.md).
 */
export class RedisDeliveryStore implements DeliveryStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #capacity: number;

  constructor(options: RedisDeliveryStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = options.prefix ?? "topicbot:delivery:";
    this.#capacity = options.capacity ?? 500;
    if (this.#capacity < 1) throw new RangeError("reply memory must be at least 1");
  }

  /** The hash holding the replies to one incoming message. */
  replyKey(incomingId: number): string {
    return `${this.#prefix}reply:${incomingId}`;
  }

  /** The sorted set of incoming IDs with replies (to load them and to trim the oldest). */
  get indexKey(): string {
    return `${this.#prefix}replies`;
  }

  async load(): Promise<DeliverySnapshot> {
    const text = await this.#redis.get(`${this.#prefix}watermark`);
    const watermark = text === null ? undefined : parseWatermark(text, `${this.#prefix}watermark`);
    const ids = (await this.#redis.zrange(this.indexKey, -this.#capacity, -1)).map(Number);
    const replies: ReplyRecord[] = [];
    for (const id of ids) replies.push(...(await this.records(id)));
    return { watermark, replies };
  }

  /** The replies remembered for one incoming message, by index. */
  async records(incomingId: number): Promise<ReplyRecord[]> {
    const hash = await this.#redis.hgetall(this.replyKey(incomingId));
    return recordsOf(incomingId, hash, this.replyKey(incomingId));
  }

  async saveWatermark(state: DeliveryState): Promise<void> {
    await this.#redis.set(`${this.#prefix}watermark`, JSON.stringify(state));
  }

  async intend(intent: ReplyIntent): Promise<void> {
    await this.#redis
      .multi()
      .hset(this.replyKey(intent.incomingId), `intent:${intent.index}`, JSON.stringify(intent))
      .zadd(this.indexKey, intent.incomingId, String(intent.incomingId))
      .exec()
      .then(failed);
    await this.trim();
  }

  async sent(incomingId: number, index: number, ids: number[]): Promise<void> {
    await this.#redis
      .multi()
      .hset(this.replyKey(incomingId), `ids:${index}`, JSON.stringify(ids))
      .zadd(this.indexKey, incomingId, String(incomingId))
      .exec()
      .then(failed);
  }

  /** Forgets the oldest incoming messages beyond capacity (run after each intent, so one at a time). */
  async trim(): Promise<void> {
    const over = (await this.#redis.zcard(this.indexKey)) - this.#capacity;
    if (over <= 0) return;
    const old = await this.#redis.zrange(this.indexKey, 0, over - 1);
    await this.#redis
      .multi()
      .zrem(this.indexKey, ...old)
      .del(...old.map((id) => this.replyKey(Number(id))))
      .exec()
      .then(failed);
  }

  flush = async (): Promise<void> => undefined;
  close = async (): Promise<void> => undefined;
}

/** Throws the first error of a MULTI/EXEC answer. */
function failed(results: [Error | null, unknown][] | null): void {
  for (const [error] of results ?? []) if (error) throw error;
}

function parseWatermark(text: string, key: string): DeliveryState {
  try {
    const state = JSON.parse(text) as DeliveryState;
    if (typeof state.lastHandledId === "number" && Array.isArray(state.handledAbove)) return state;
  } catch {
    // reported below
  }
  throw new Error(
    `delivery watermark at Redis key ${key} is damaged; delete the key to start from the newest message`,
  );
}

/** Turns one reply hash (`intent:<n>`, `ids:<n>`) into records ordered by index. */
export function recordsOf(
  incomingId: number,
  hash: Record<string, string>,
  key: string,
): ReplyRecord[] {
  const byIndex = new Map<number, ReplyRecord>();
  for (const [field, text] of Object.entries(hash)) {
    const match = /^(intent|ids):(\d+)$/.exec(field);
    if (!match) continue;
    const index = Number(match[2]);
    const record = byIndex.get(index) ?? { incomingId, index };
    try {
      if (match[1] === "intent") record.intent = JSON.parse(text) as ReplyIntent;
      else record.ids = JSON.parse(text) as number[];
    } catch {
      throw new Error(
        `reply journal at Redis key ${key} field ${field} is damaged; delete the key`,
      );
    }
    byIndex.set(index, record);
  }
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}
