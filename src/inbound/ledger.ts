// Delivery bookkeeping: which messages were handled (a persisted watermark plus recent IDs), so none is handled twice.
import { MinHeap } from "./min-heap.js";
import { IdSet } from "../state/id-set.js";
import { RecentIds } from "../state/recent-ids.js";
import type { DeliveryState, DeliveryStore } from "../state/delivery/store.js";

export type { DeliveryState } from "../state/delivery/store.js";

export interface DeliveryLedgerOptions {
  /** Where the watermark lives. */
  store: DeliveryStore;
  /** How many recent message IDs are remembered for de-duplication. Default 10000. */
  recentCapacity?: number;
  /** Called when persisting fails; handling goes on (the next write retries). */
  onError?: (error: unknown) => void;
  /** Called when a save succeeded. */
  onSaved?: () => void;
}

const MAX_HANDLED_ABOVE = 1_000;

/**
 * What `finish` returns when nothing waits to be saved: one settled promise for all of them (it
 * runs twice per reply, for the message and for the bot's own echo, and its callers rarely wait).
 */
const SAVED: Promise<void> = Promise.resolve();

/**
 * Claims each message once and keeps a watermark: the highest message ID below which everything
 * claimed has finished. The watermark is what catch-up starts from after a restart or a lost queue.
 * Changes within one turn of the event loop are saved as one write of the newest state.
 *
 * @example
 * const ledger = new DeliveryLedger({ store });
 * ledger.restore((await store.load()).watermark);
 * if (ledger.claim(message.id)) { await handle(message); await ledger.finish(message.id); }
 */
export class DeliveryLedger {
  readonly #store: DeliveryStore;
  readonly #recent: RecentIds;
  readonly #onError: (error: unknown) => void;
  readonly #onSaved: () => void;
  /** The claimed IDs not finished yet (an `IdSet`: one is added and one removed per message). */
  readonly #running = new IdSet();
  /** The running IDs, smallest first; finished ones leave it when they reach the top. */
  readonly #runningOrder = new MinHeap();
  /** Finished IDs above the oldest running one, smallest first; the watermark passes them in order. */
  readonly #handledAbove = new MinHeap();
  #lastHandledId: number | undefined;
  #highestSeen = 0;
  /** The save waiting for the end of this turn, if any. */
  #pending: Promise<void> | undefined;

  constructor(options: DeliveryLedgerOptions) {
    this.#store = options.store;
    this.#recent = new RecentIds(options.recentCapacity ?? 10_000);
    this.#onError = options.onError ?? (() => undefined);
    this.#onSaved = options.onSaved ?? (() => undefined);
  }

  /** Takes in the persisted state (from `DeliveryStore.load`); returns the last handled ID. */
  restore(state: DeliveryState | undefined): number | undefined {
    if (!state) return undefined;
    this.#lastHandledId = state.lastHandledId;
    this.#highestSeen = Math.max(this.#highestSeen, state.lastHandledId);
    for (const id of state.handledAbove) {
      this.#recent.add(id);
      this.#handledAbove.push(id);
      if (id > this.#highestSeen) this.#highestSeen = id;
    }
    return this.#lastHandledId;
  }

  /** The watermark: catch-up fetches messages after this one. */
  get lastHandledId(): number | undefined {
    return this.#lastHandledId;
  }

  /** The highest message ID seen so far (a message sent now gets a higher one). */
  get highestSeen(): number {
    return this.#highestSeen;
  }

  /** Messages claimed and not finished. */
  get running(): number {
    return this.#running.size;
  }

  /** True when the message was claimed already (or lies at or below the watermark). */
  has(id: number): boolean {
    return (this.#lastHandledId !== undefined && id <= this.#lastHandledId) || this.#recent.has(id);
  }

  /**
   * On a first start: messages up to `id` were sent before the bot existed; catch-up starts after
   * it. Durable when it resolves (written and flushed, not left for the store's lazy write): a
   * process killed after its queue was registered must find this watermark on disk, or the next
   * start counts as a first start again and skips what was sent meanwhile (issue 29). Rejects
   * when the write fails: the caller decides whether the bot may start without it.
   */
  async baseline(id: number): Promise<void> {
    if (this.#lastHandledId !== undefined) return this.#pending ?? SAVED;
    this.#lastHandledId = id;
    if (id > this.#highestSeen) this.#highestSeen = id;
    await this.#store.saveWatermark({ lastHandledId: id, handledAbove: [] });
    await this.#store.flush();
    this.#onSaved();
  }

  /** Takes a message for handling; false when it was handled (or is being handled) already. */
  claim(id: number): boolean {
    if (this.#lastHandledId !== undefined && id <= this.#lastHandledId) return false;
    if (!this.#recent.add(id)) return false;
    this.#running.add(id);
    this.#runningOrder.push(id);
    if (id > this.#highestSeen) this.#highestSeen = id;
    return true;
  }

  /**
   * Marks a claimed message handled, moves the watermark and persists it. Both ID sets are heaps,
   * so this is O(log n) in the messages running: it runs for every message.
   */
  finish(id: number): Promise<void> {
    if (!this.#running.delete(id)) return this.#pending ?? SAVED;
    if (this.#handledAbove.size === 0 && this.#runningOrder.peek() === id)
      return this.#finishOldest();
    const handled = this.#handledAbove;
    handled.push(id);
    // Everything finished below the oldest running message is handled: the watermark moves past it.
    const oldest = this.#oldestRunning();
    let mark = this.#lastHandledId;
    while (handled.size > 0 && handled.peek()! < oldest) {
      const done = handled.pop()!;
      if (mark === undefined || done > mark) mark = done;
    }
    this.#lastHandledId = mark;
    // Bounded: past the limit the oldest are forgotten (their replies are still remembered).
    if (handled.size > MAX_HANDLED_ABOVE) handled.pop();
    return this.#persist();
  }

  /**
   * `finish` of the oldest running message while nothing finished waits above it, the common case
   * (messages finish in the order they came). A fast path: the general one would push the ID onto
   * `#handledAbove`, find the next oldest running ID and pop the ID straight back; here the
   * watermark moves to it at once (nothing else finished lies below the next running ID) and the
   * heap of running IDs drops it, about a tenth of a message's ledger work (callgrind, issue 17).
   * `ledger.test.ts` checks both paths against a model of the watermark.
   */
  #finishOldest(): Promise<void> {
    const id = this.#runningOrder.pop()!;
    if (this.#lastHandledId === undefined || id > this.#lastHandledId) this.#lastHandledId = id;
    return this.#persist();
  }

  /** The smallest running ID (Infinity when none runs); drops finished IDs from the heap's top. */
  #oldestRunning(): number {
    const order = this.#runningOrder;
    while (order.size > 0 && !this.#running.has(order.peek()!)) order.pop();
    return order.peek() ?? Infinity;
  }

  /** Resolves when the save of every change so far has ended. */
  settled(): Promise<void> {
    return this.#pending ?? SAVED;
  }

  /** Saves the state once at the end of this turn, however many changes it saw. */
  #persist(): Promise<void> {
    if (this.#store.saveWatermarkLater) return this.#persistLater(this.#store.saveWatermarkLater);
    this.#pending ??= new Promise<void>((resolve) =>
      setImmediate(() => {
        this.#pending = undefined;
        const state = this.#state();
        if (!state) return resolve();
        this.#store.saveWatermark(state).then(
          () => {
            this.#onSaved();
            resolve();
          },
          (error: unknown) => {
            this.#onError(error);
            resolve();
          },
        );
      }),
    );
    return this.#pending;
  }

  /**
   * `#persist` for a store that takes the state when it writes (`saveWatermarkLater`): hands it
   * the ledger's `#state`, at once and without a turn's wait, since the store does the batching.
   * Under load the state (every handled ID above the oldest running one, sorted) was built every
   * turn, for a store that writes it once per 20 ms.
   */
  #persistLater(later: (state: () => DeliveryState | undefined) => void): Promise<void> {
    try {
      later.call(this.#store, this.#stateNow);
      this.#onSaved();
    } catch (error) {
      this.#onError(error);
    }
    return SAVED;
  }

  /** `#state`, bound once: what `saveWatermarkLater` stores calls when they write. */
  readonly #stateNow = (): DeliveryState | undefined => this.#state();

  #state(): DeliveryState | undefined {
    if (this.#lastHandledId === undefined && this.#handledAbove.size === 0) return undefined;
    let lastHandledId = this.#lastHandledId;
    if (lastHandledId === undefined)
      lastHandledId = Math.min(this.#oldestRunning(), this.#handledAbove.peek() ?? Infinity) - 1;
    return { lastHandledId, handledAbove: this.#handledAbove.sorted() };
  }
}
