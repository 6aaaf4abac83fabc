// A bounded set of recently seen IDs: remembers the last N, forgets the oldest first (a ring buffer).

/**
 * Remembers up to `capacity` IDs; adding past that forgets the oldest. Used to make sure a message
 * seen twice (after a queue was lost and caught up) is handled once. The insertion order lives in
 * a ring of numbers, so forgetting the oldest costs one array read, not a Set iterator.
 */
export class RecentIds {
  readonly #ring: Float64Array;
  readonly #set = new Set<number>();
  /** Where the next ID goes; once full, also the oldest one. */
  #head = 0;

  constructor(capacity: number) {
    if (capacity < 1) throw new RangeError("capacity must be at least 1");
    this.#ring = new Float64Array(capacity);
  }

  has(id: number): boolean {
    return this.#set.has(id);
  }

  /**
   * Adds `id`; returns false when it was already there. The size before and after tells whether
   * it was new, which saves a separate lookup: this runs for every message claimed.
   */
  add(id: number): boolean {
    const set = this.#set;
    const before = set.size;
    set.add(id);
    if (set.size === before) return false;
    const ring = this.#ring;
    // Full: the slot being written holds the oldest ID, which is forgotten.
    if (before === ring.length) set.delete(ring[this.#head]!);
    ring[this.#head] = id;
    this.#head = this.#head + 1 === ring.length ? 0 : this.#head + 1;
    return true;
  }

  get size(): number {
    return this.#set.size;
  }
}
