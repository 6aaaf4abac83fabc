// Where delivery state lives: the one seam between exactly-once delivery and its storage (memory, file, Redis).
import type { ReplyBook } from "./records.js";
import type { DeliverySnapshot, DeliveryState, ReplyIntent, ReplyRecord } from "./shapes.js";

export type { DeliverySnapshot, DeliveryState, ReplyIntent, ReplyRecord } from "./shapes.js";

/**
 * The delivery store: the watermark and the reply journal. One interface, three homes: memory
 * (tests, `storage: memory`), a file (single process), Redis (a cluster, or a single process that
 * wants it). The runtime never knows which.
 *
 * Contract:
 * - `intend` resolves only when the intent would survive the process being killed at once
 *   (SIGKILL): a reply is never sent before its intent is stored.
 * - `intend` may hold an intent back to write it together with the others of the same turn of
 *   the event loop (group commit: one write for a poll's replies); it resolves after that write.
 * - `sent` may be lazier: an intent whose outcome was lost is resolved by read-back.
 * - Cost per reply is O(1) in how much is remembered (append or per-key writes, no rewrite of all).
 * - Damaged persisted state is an error naming where it lives and what to do, never a silent reset.
 */
export interface DeliveryStore {
  /** Reads what was persisted; called once before the bot handles anything. */
  load(): Promise<DeliverySnapshot>;
  /** Persists the watermark (a burst of changes may be coalesced into one write). */
  saveWatermark(state: DeliveryState): Promise<void>;
  /**
   * `saveWatermark` for a store that writes the watermark less often than it changes (the file
   * journal: at most once per 20 ms): it calls `state` only when it writes, for the newest state
   * then, so the ledger does not build (and sort) a state every turn for writes that never come.
   * A newer state than the one of the call is as true (the watermark only moves past finished
   * messages). `state` returns undefined while there is nothing to save. Throws when
   * `saveWatermark` would reject.
   */
  saveWatermarkLater?(state: () => DeliveryState | undefined): void;
  /** Durably records the intent to send a reply (see the contract above). */
  intend(intent: ReplyIntent): Promise<void>;
  /** Records the outcome of an intent: the IDs of the posted messages. */
  sent(incomingId: number, index: number, ids: number[]): Promise<void>;
  /**
   * `sent` for a store that takes the outcome synchronously; throws when `sent` would reject.
   * With it the reply guard records an outcome without waiting a turn of the event loop.
   */
  sentNow?(incomingId: number, index: number, ids: number[]): void;
  /**
   * The store's own record of the replies it holds, kept current by `load`, `intend` and `sent`
   * as they are called. A store that keeps one hands it to the reply guard, which reads it instead
   * of keeping a second copy of every reply; one without (Redis) leaves it out.
   */
  readonly replies?: ReplyBook;
  /**
   * A store shared by several processes (a cluster) answers for replies any of them recorded: the
   * reply guard reads one message's records here before its first reply to it. A store only this
   * process writes leaves it out (what `load` returned is all there is).
   */
  recordsOf?(incomingId: number): Promise<ReplyRecord[]>;
  /** Writes anything pending. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Thrown by `DeliveryStore.intend` when this process may no longer handle the message (a cluster
 * node that lost the message's partition to another): the reply is not sent, the new owner sends it.
 */
export class DeliveryFencedError extends Error {
  constructor(incomingId: number, why: string) {
    super(`reply to message ${incomingId} not sent: ${why}`);
    this.name = "DeliveryFencedError";
  }
}
