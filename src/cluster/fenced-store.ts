// The delivery store of a cluster node: the Redis reply journal, with each intent fenced by the partition lock of its message.
import { sleep } from "../client/backoff.js";
import { isFenced, type Fence, type ScriptedRedis } from "./scripts.js";
import type { RedisDeliveryStore } from "../state/delivery/redis.js";
import {
  DeliveryFencedError,
  type DeliverySnapshot,
  type DeliveryStore,
  type ReplyIntent,
  type ReplyRecord,
} from "../state/delivery/store.js";

export interface FencedDeliveryStoreOptions {
  redis: ScriptedRedis;
  /** The shared reply journal (intents and outcomes of every node). */
  journal: RedisDeliveryStore;
  /** The partition lock's TTL (a lapsed lock nobody took is set again by the intent). */
  ttlMs: number;
  /** The fence of the partition this node handled message `incomingId` from; undefined if it did not. */
  fenceOf(incomingId: number): Fence | undefined;
  /** Resolves once what was just written reached a replica (Sentinel mode; a no-op otherwise). */
  durable?(): Promise<void>;
  /** An intent Redis refused with an error (not the fence): it is tried again. */
  onRetry?(error: unknown, attempt: number): void;
  /** The clock the lock's remaining time is measured by. Default `Date.now`. */
  now?(): number;
}

/**
 * The part of the lock's TTL an intent may take, from asking Redis to handing the reply to the
 * sender; the rest is the post's margin. Slower (a replica's WAIT, a connection that stalled after
 * Redis answered), the lock may lapse and move before the post lands, and the intent is confirmed again.
 */
const INTENT_SHARE_OF_TTL = 0.5;

/**
 * `DeliveryStore` for the runtime's reply guard in cluster mode. Replies are journaled in Redis
 * where every node reads them (`recordsOf`), and an intent is written only while this node still
 * holds the lock of the message's partition (one Lua step; a lock that lapsed while Redis was away
 * and nobody took is resumed): a node that lost the partition (paused, cut off, or too slow) gets
 * `DeliveryFencedError` and does not send; the new owner handles the
 * message again and finds what was sent. The fenced step extends the lock, and `intend` resolves
 * only while at least half its TTL is left by this node's clock: the reply is sent while no
 * other node can have taken the partition (the server itself cannot check a fence). The
 * watermark is not kept here: the cluster's is the leader's published set (src/cluster/leader.ts).
 */
export class FencedDeliveryStore implements DeliveryStore {
  readonly #o: FencedDeliveryStoreOptions;

  constructor(options: FencedDeliveryStoreOptions) {
    this.#o = options;
  }

  /** Nothing up front: records are read per message, when it is handled (`recordsOf`). */
  load = async (): Promise<DeliverySnapshot> => ({ watermark: undefined, replies: [] });

  saveWatermark = async (): Promise<void> => undefined;

  recordsOf(incomingId: number): Promise<ReplyRecord[]> {
    return this.#o.journal.records(incomingId);
  }

  async intend(intent: ReplyIntent): Promise<void> {
    const { redis, journal } = this.#o;
    const fence = this.#o.fenceOf(intent.incomingId);
    if (fence === undefined)
      throw new DeliveryFencedError(
        intent.incomingId,
        "this node did not take it from a partition",
      );
    const now = this.#o.now ?? Date.now;
    // Until Redis says yes or no: a reply is never sent without the lock, nor given up while
    // Redis errs (a connection that is closing, a primary being demoted).
    for (let attempt = 0; ; attempt++) {
      const askedAt = now();
      try {
        await redis.fencedIntend(
          fence.lock,
          fence.last,
          journal.replyKey(intent.incomingId),
          journal.indexKey,
          fence.holder,
          this.#o.ttlMs,
          `intent:${intent.index}`,
          JSON.stringify(intent),
          intent.incomingId,
        );
        // Before the reply is sent: an intent lost in a failover would have it sent again.
        await this.#o.durable?.();
      } catch (error) {
        if (isFenced(error))
          throw new DeliveryFencedError(
            intent.incomingId,
            "its partition moved to another node, which handles it",
          );
        this.#o.onRetry?.(error, attempt);
        await sleep(Math.min(100 * 2 ** attempt, 1_000));
        continue;
      }
      // The lock is ours until askedAt + TTL at the earliest; too little of that left for the post
      // (Redis answered late, the process stalled): ask again, so a moved partition is seen.
      if (now() - askedAt <= this.#o.ttlMs * INTENT_SHARE_OF_TTL) break;
    }
    // Not on the way to the post: a trim Redis does not answer (cut off just now) must not hold a
    // reply past the lock's time. A failed one is done by a later intent.
    journal.trim().catch(() => undefined);
  }

  sent(incomingId: number, index: number, ids: number[]): Promise<void> {
    return this.#o.journal.sent(incomingId, index, ids);
  }

  flush = async (): Promise<void> => undefined;
  close = async (): Promise<void> => undefined;
}
