// The key-value delivery store: the watermark and reply records as keys of any KeyValueStore (in memory for `storage: memory`).
import type { KeyValueStore } from "../key-value/store.js";
import {
  checkIds,
  checkIntent,
  checkLegacyReplies,
  checkWatermark,
  DamagedDeliveryState,
  ReplyBook,
} from "./records.js";
import type {
  DeliverySnapshot,
  DeliveryState,
  DeliveryStore,
  ReplyIntent,
  ReplyRecord,
} from "./store.js";

const WATERMARK = "delivery";
/** The whole reply ledger in one key, as versions before the reply journal kept it. */
const LEGACY_REPLIES = "replies";
const REPLY = "reply:";

/**
 * Keeps delivery state in a key-value namespace: the watermark under `delivery`, and the replies
 * to each incoming message under `reply:<id>` (one small key written per change, the oldest
 * deleted past `capacity`). As durable as that store: with the memory store it lasts as long as
 * the process (or the store object, which tests share between two bots to play a restart); the
 * file key-value store batches writes, so for crash safety use the `FileDeliveryStore`, which
 * `openDeliveryStore` picks for `storage: file`.
 *
 * @example
 * const store = new KeyValueDeliveryStore(createMemoryStore().namespace("topicbot:runtime"));
 */
export class KeyValueDeliveryStore implements DeliveryStore {
  readonly #kv: KeyValueStore;
  readonly #book: ReplyBook;
  /** Writes not yet settled, so `flush` can wait for them. */
  readonly #writes = new Set<Promise<unknown>>();

  constructor(kv: KeyValueStore, capacity = 500) {
    this.#kv = kv;
    this.#book = new ReplyBook(capacity, (id) => this.#track(this.#kv.delete(`${REPLY}${id}`)));
  }

  /** The remembered replies (see `DeliveryStore.replies`). */
  get replies(): ReplyBook {
    return this.#book;
  }

  async load(): Promise<DeliverySnapshot> {
    const saved = await this.#kv.get(WATERMARK);
    const watermark =
      saved === undefined
        ? undefined
        : checkWatermark(saved, `storage key "topicbot:runtime/${WATERMARK}"`);
    const legacy = await this.#kv.get(LEGACY_REPLIES);
    if (legacy !== undefined) {
      for (const r of checkLegacyReplies(
        legacy,
        `storage key "topicbot:runtime/${LEGACY_REPLIES}"`,
      ))
        this.#book.put(r);
    }
    const keys = await this.#kv.list(REPLY);
    const ordered = keys
      .map((key) => ({ key, id: Number(key.slice(REPLY.length)) }))
      .sort((a, b) => a.id - b.id);
    for (const { key } of ordered) {
      const where = `storage key "topicbot:runtime/${key}"`;
      const records = await this.#kv.get(key);
      if (!Array.isArray(records))
        throw new DamagedDeliveryState(where, "expected a list of reply records");
      for (const r of records as (ReplyRecord | null)[]) {
        if (!r) continue;
        if (r.intent) checkIntent(r.intent, where);
        if (r.ids !== undefined) checkIds(r.ids, where, "ids");
        this.#book.put(r);
      }
    }
    if (legacy !== undefined) {
      for (const r of this.#book.records()) this.#save(r.incomingId);
      await this.#kv.delete(LEGACY_REPLIES);
    }
    return { watermark, replies: this.#book.records() };
  }

  saveWatermark(state: DeliveryState): Promise<void> {
    return this.#track(this.#kv.set(WATERMARK, state));
  }

  intend(intent: ReplyIntent): Promise<void> {
    this.#book.intend(intent);
    return this.#save(intent.incomingId);
  }

  sent(incomingId: number, index: number, ids: number[]): Promise<void> {
    this.#book.sent(incomingId, index, ids);
    return this.#save(incomingId);
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.#writes]);
    await this.#kv.flush();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#writes]);
  }

  #save(incomingId: number): Promise<void> {
    return this.#track(this.#kv.set(`${REPLY}${incomingId}`, this.#book.of(incomingId)));
  }

  #track<T>(write: Promise<T>): Promise<T> {
    this.#writes.add(write);
    void write.finally(() => this.#writes.delete(write)).catch(() => undefined);
    return write;
  }
}
