// A bounded set of recently seen IDs: remembers the last N, forgets the oldest first.

/**
 * Remembers up to `capacity` IDs; adding past that forgets the oldest. Used to make sure a message
 * seen twice (after a queue was lost and caught up) is handled once.
 */
export class RecentIds {
  readonly #capacity: number;
  readonly #set = new Set<number>();

  constructor(capacity: number) {
    if (capacity < 1) throw new RangeError("capacity must be at least 1");
    this.#capacity = capacity;
  }

  has(id: number): boolean {
    return this.#set.has(id);
  }

  /** Adds `id`; returns false when it was already there. */
  add(id: number): boolean {
    if (this.#set.has(id)) return false;
    this.#set.add(id);
    if (this.#set.size > this.#capacity) {
      const oldest = this.#set.values().next().value as number;
      this.#set.delete(oldest);
    }
    return true;
  }

  get size(): number {
    return this.#set.size;
  }
}
