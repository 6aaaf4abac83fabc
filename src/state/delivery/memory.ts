// The delivery store of `storage: memory`: the watermark and the reply book in this process's memory, with no copies and no writes.
import { isMemoryStore, type KeyValueStore } from "../key-value/store.js";
import { KeyValueDeliveryStore } from "./key-value.js";
import { ReplyBook } from "./records.js";
import type { DeliverySnapshot, DeliveryState, DeliveryStore, ReplyIntent } from "./store.js";

/**
 * Delivery state that lasts as long as the process, as everything in a memory store does. The
 * reply book is the store itself: an intent or outcome is entered once, by reference, where a
 * key-value store would copy every record of the message on every change (a key-value `set`
 * keeps a JSON copy of its value). `sentNow` takes outcomes at once.
 *
 * @example
 * const delivery = new MemoryDeliveryStore(500);
 * const bot = createBot({ ..., delivery });
 */
export class MemoryDeliveryStore implements DeliveryStore {
  readonly replies: ReplyBook;
  #watermark: DeliveryState | undefined;
  /** The ledger's newest state, read when it is wanted (`saveWatermarkLater`): nothing to copy per change. */
  #latest: (() => DeliveryState | undefined) | undefined;

  constructor(capacity = 500) {
    this.replies = new ReplyBook(capacity);
  }

  async load(): Promise<DeliverySnapshot> {
    const latest = this.#latest?.();
    if (latest) this.#keep(latest);
    return { watermark: this.#watermark, replies: this.replies.records() };
  }

  async saveWatermark(state: DeliveryState): Promise<void> {
    this.#latest = undefined;
    this.#keep(state);
  }

  saveWatermarkLater(state: () => DeliveryState | undefined): void {
    this.#latest = state;
  }

  async intend(intent: ReplyIntent): Promise<void> {
    this.replies.intend(intent);
  }

  async sent(incomingId: number, index: number, ids: number[]): Promise<void> {
    this.replies.sent(incomingId, index, ids);
  }

  sentNow(incomingId: number, index: number, ids: number[]): void {
    this.replies.sent(incomingId, index, ids);
  }

  async flush(): Promise<void> {}

  async close(): Promise<void> {
    const latest = this.#latest?.();
    if (latest) this.#keep(latest);
    this.#latest = undefined;
  }

  /** The ledger may hand over an array it keeps changing: keep what it says now. */
  #keep(state: DeliveryState): void {
    this.#watermark = {
      lastHandledId: state.lastHandledId,
      handledAbove: [...state.handledAbove],
    };
  }
}

/** One per memory store: two bots over the same store object (a restart played in one process) share it. */
const ofMemoryStore = new WeakMap<KeyValueStore, MemoryDeliveryStore>();

/**
 * The memory delivery store that belongs to a memory key-value store: made on first use, the same
 * for every bot given that store object.
 */
export function memoryDeliveryOf(storage: KeyValueStore, capacity?: number): MemoryDeliveryStore {
  let store = ofMemoryStore.get(storage);
  if (!store) {
    store = new MemoryDeliveryStore(capacity);
    ofMemoryStore.set(storage, store);
  }
  return store;
}

/**
 * The delivery store that goes with a key-value store a bot was given or made: over a memory
 * store (`createMemoryStore`), the memory delivery store that belongs to it; over any other, its
 * keys (`KeyValueDeliveryStore`, under `runtime`).
 */
export function deliveryStoreOver(
  storage: KeyValueStore,
  runtime: KeyValueStore,
  capacity?: number,
): DeliveryStore {
  return isMemoryStore(storage)
    ? memoryDeliveryOf(storage, capacity)
    : new KeyValueDeliveryStore(runtime, capacity);
}
