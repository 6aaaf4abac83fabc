// Delivery bookkeeping: which messages were handled (a persisted watermark plus recent IDs), so none is handled twice.
import { LatestWriter } from "../../storage/latest-writer.js";
import type { KeyValueStore } from "../../storage/store.js";
import { RecentIds } from "./recent.js";
import type { DeliveryState } from "./store.js";

export type { DeliveryState } from "./store.js";

export interface DeliveryLedgerOptions {
  /** Where the state lives (the runtime's namespace of the bot's storage). */
  store: KeyValueStore;
  /** How many recent message IDs are remembered for de-duplication. Default 10000. */
  recentCapacity?: number;
  /** Called when persisting fails; handling goes on (the next write retries). */
  onError?: (error: unknown) => void;
}

const KEY = "delivery";
const MAX_HANDLED_ABOVE = 1_000;

/**
 * Claims each message once and keeps a watermark: the highest message ID below which everything
 * claimed has finished. The watermark is what catch-up starts from after a restart or a lost queue.
 *
 * @example
 * const ledger = new DeliveryLedger({ store: storage.namespace("topicbot:runtime") });
 * await ledger.load();
 * if (ledger.claim(message.id)) { await handle(message); await ledger.finish(message.id); }
 */
export class DeliveryLedger {
  readonly #store: KeyValueStore;
  readonly #recent: RecentIds;
  readonly #onError: (error: unknown) => void;
  readonly #running = new Set<number>();
  readonly #handledAbove = new Set<number>();
  #lastHandledId: number | undefined;
  #highestSeen = 0;
  readonly #writer: LatestWriter;

  constructor(options: DeliveryLedgerOptions) {
    this.#store = options.store;
    this.#recent = new RecentIds(options.recentCapacity ?? 10_000);
    this.#onError = options.onError ?? (() => undefined);
    this.#writer = new LatestWriter(async () => {
      const state = this.#state();
      if (!state) return;
      await this.#store.set(KEY, state).catch((error: unknown) => this.#onError(error));
    });
  }

  /** Reads the persisted state; returns the last handled ID, or undefined on a first start. */
  async load(): Promise<number | undefined> {
    const state = await this.#store.get<DeliveryState>(KEY);
    if (!state || typeof state.lastHandledId !== "number") return undefined;
    this.#lastHandledId = state.lastHandledId;
    this.#highestSeen = Math.max(this.#highestSeen, state.lastHandledId);
    for (const id of state.handledAbove ?? []) {
      this.#recent.add(id);
      this.#handledAbove.add(id);
      this.#highestSeen = Math.max(this.#highestSeen, id);
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
    if (this.#lastHandledId !== undefined) return this.#writer.settled();
    this.#lastHandledId = id;
    this.#highestSeen = Math.max(this.#highestSeen, id);
    return this.#persist();
  }

  /** Takes a message for handling; false when it was handled (or is being handled) already. */
  claim(id: number): boolean {
    if (this.#lastHandledId !== undefined && id <= this.#lastHandledId) return false;
    if (!this.#recent.add(id)) return false;
    this.#running.add(id);
    this.#highestSeen = Math.max(this.#highestSeen, id);
    return true;
  }

  /** Marks a claimed message handled, moves the watermark and persists it. */
  finish(id: number): Promise<void> {
    if (!this.#running.delete(id)) return this.#writer.settled();
    this.#handledAbove.add(id);
    const oldestRunning = this.#running.size === 0 ? Infinity : Math.min(...this.#running);
    let mark = this.#lastHandledId;
    for (const done of this.#handledAbove) {
      if (done < oldestRunning) {
        mark = mark === undefined ? done : Math.max(mark, done);
        this.#handledAbove.delete(done);
      }
    }
    this.#lastHandledId = mark;
    // Bounded: past the limit the oldest are forgotten (their replies are still remembered).
    while (this.#handledAbove.size > MAX_HANDLED_ABOVE) {
      this.#handledAbove.delete(Math.min(...this.#handledAbove));
    }
    return this.#persist();
  }

  /** Persists the state as it is when the write starts (a burst of changes is one write). */
  #persist(): Promise<void> {
    return this.#writer.schedule();
  }

  #state(): DeliveryState | undefined {
    if (this.#lastHandledId === undefined && this.#handledAbove.size === 0) return undefined;
    return {
      lastHandledId: this.#lastHandledId ?? Math.min(...this.#running, ...this.#handledAbove) - 1,
      handledAbove: [...this.#handledAbove].sort((a, b) => a - b),
    };
  }
}
