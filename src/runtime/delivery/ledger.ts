// Delivery bookkeeping: which messages were handled (a persisted watermark plus recent IDs), so none is handled twice.
import { RecentIds } from "./recent.js";
import type { DeliveryState, DeliveryStore } from "./store.js";

export type { DeliveryState } from "./store.js";

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
  readonly #running = new Set<number>();
  /** The smallest running ID (Infinity when none runs), kept so `finish` needs no scan as a rule. */
  #oldestRunning = Infinity;
  readonly #handledAbove = new Set<number>();
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
      this.#handledAbove.add(id);
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

  /** On a first start: messages up to `id` were sent before the bot existed; catch-up starts after it. */
  baseline(id: number): Promise<void> {
    if (this.#lastHandledId !== undefined) return this.#pending ?? Promise.resolve();
    this.#lastHandledId = id;
    if (id > this.#highestSeen) this.#highestSeen = id;
    return this.#persist();
  }

  /** Takes a message for handling; false when it was handled (or is being handled) already. */
  claim(id: number): boolean {
    if (this.#lastHandledId !== undefined && id <= this.#lastHandledId) return false;
    if (!this.#recent.add(id)) return false;
    this.#running.add(id);
    if (id < this.#oldestRunning) this.#oldestRunning = id;
    if (id > this.#highestSeen) this.#highestSeen = id;
    return true;
  }

  /** Marks a claimed message handled, moves the watermark and persists it. */
  finish(id: number): Promise<void> {
    if (!this.#running.delete(id)) return this.#pending ?? Promise.resolve();
    this.#handledAbove.add(id);
    // Only the oldest running message holds the watermark back: nothing moves until it finishes.
    if (id === this.#oldestRunning) {
      this.#oldestRunning = Infinity;
      for (const r of this.#running) if (r < this.#oldestRunning) this.#oldestRunning = r;
      let mark = this.#lastHandledId;
      for (const done of this.#handledAbove) {
        if (done < this.#oldestRunning) {
          if (mark === undefined || done > mark) mark = done;
          this.#handledAbove.delete(done);
        }
      }
      this.#lastHandledId = mark;
    }
    // Bounded: past the limit the oldest are forgotten (their replies are still remembered).
    if (this.#handledAbove.size > MAX_HANDLED_ABOVE) {
      let smallest = Infinity;
      for (const done of this.#handledAbove) if (done < smallest) smallest = done;
      this.#handledAbove.delete(smallest);
    }
    return this.#persist();
  }

  /** Resolves when the save of every change so far has ended. */
  settled(): Promise<void> {
    return this.#pending ?? Promise.resolve();
  }

  /** Saves the state once at the end of this turn, however many changes it saw. */
  #persist(): Promise<void> {
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

  #state(): DeliveryState | undefined {
    if (this.#lastHandledId === undefined && this.#handledAbove.size === 0) return undefined;
    let lastHandledId = this.#lastHandledId;
    if (lastHandledId === undefined) {
      let smallest = this.#oldestRunning;
      for (const done of this.#handledAbove) if (done < smallest) smallest = done;
      lastHandledId = smallest - 1;
    }
    return {
      lastHandledId,
      handledAbove: [...this.#handledAbove].sort((a, b) => a - b),
    };
  }
}
