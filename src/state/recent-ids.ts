// A bounded set of recently seen IDs: remembers the last N, forgets the oldest first (a ring buffer).
import { IdSet } from "./id-set.js";

/**
 * Remembers up to `capacity` IDs (positive integers: message IDs); adding past that forgets the
 * oldest. Used to make sure a message seen twice (after a queue was lost and caught up) is handled
 * once. The insertion order lives in a ring of numbers, so forgetting the oldest costs one array
 * read, not a Set iterator; the set itself is an `IdSet` sized for `capacity`, which never grows.
 */
export class RecentIds {
  readonly #ring: Float64Array;
  readonly #ids: IdSet;
  /** Where the next ID goes; once full, also the oldest one. */
  #head = 0;

  constructor(capacity: number) {
    if (capacity < 1) throw new RangeError("capacity must be at least 1");
    this.#ring = new Float64Array(capacity);
    this.#ids = new IdSet(capacity + 1);
  }

  has(id: number): boolean {
    return this.#ids.has(id);
  }

  /** Adds `id` (a positive integer); returns false when it was already there. */
  add(id: number): boolean {
    if (!this.#ids.add(id)) return false;
    const ring = this.#ring;
    // Full: the slot being written holds the oldest ID, which is forgotten.
    if (this.#ids.size > ring.length) this.#ids.delete(ring[this.#head]!);
    ring[this.#head] = id;
    this.#head = this.#head + 1 === ring.length ? 0 : this.#head + 1;
    return true;
  }

  get size(): number {
    return this.#ids.size;
  }
}
