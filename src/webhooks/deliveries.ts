// Delivery IDs already taken: a bounded memory that lets a replayed webhook delivery be answered without posting twice.

/**
 * Remembers up to `capacity` delivery IDs, forgetting the oldest first. `claim` takes an ID once;
 * `release` gives it back when handling failed, so the sender's retry is handled.
 */
export class DeliveryIds {
  readonly #capacity: number;
  readonly #ids = new Set<string>();

  constructor(capacity: number) {
    if (capacity < 1) throw new RangeError("capacity must be at least 1");
    this.#capacity = capacity;
  }

  /** Takes `id`; false when it was taken before (a replay). */
  claim(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    if (this.#ids.size > this.#capacity) this.#ids.delete(this.#ids.values().next().value!);
    return true;
  }

  /** Forgets `id` (its handling failed). */
  release(id: string): void {
    this.#ids.delete(id);
  }
}
