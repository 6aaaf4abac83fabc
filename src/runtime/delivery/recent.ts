// A bounded set of recently seen IDs: remembers the last N, forgets the oldest first (a ring buffer).

/**
 * Remembers up to `capacity` IDs (positive integers: message IDs); adding past that forgets the
 * oldest. Used to make sure a message seen twice (after a queue was lost and caught up) is handled
 * once. The insertion order lives in a ring of numbers, so forgetting the oldest costs one array
 * read, not a Set iterator.
 *
 * The set itself is an open-addressing hash table in a Float64Array (linear probing, 0 marks an
 * empty slot, removal shifts the probe chain back so no tombstones build up) rather than a `Set`:
 * this runs for every message claimed, and a `Set` that forgets one ID per add rehashes its whole
 * table every few thousand adds; this table is at most half full and never rehashes.
 */
export class RecentIds {
  readonly #ring: Float64Array;
  readonly #slots: Float64Array;
  readonly #mask: number;
  /** Where the next ID goes; once full, also the oldest one. */
  #head = 0;
  #size = 0;

  constructor(capacity: number) {
    if (capacity < 1) throw new RangeError("capacity must be at least 1");
    this.#ring = new Float64Array(capacity);
    let slots = 2;
    while (slots < capacity * 2) slots *= 2;
    this.#slots = new Float64Array(slots);
    this.#mask = slots - 1;
  }

  has(id: number): boolean {
    const slots = this.#slots;
    for (let i = this.#home(id); ; i = (i + 1) & this.#mask) {
      if (slots[i] === id) return true;
      if (slots[i] === 0) return false;
    }
  }

  /** Adds `id`; returns false when it was already there. */
  add(id: number): boolean {
    if (!Number.isInteger(id) || id < 1)
      throw new RangeError(`RecentIds takes positive integer IDs, not ${id}`);
    if (!this.#insert(id)) return false;
    const ring = this.#ring;
    // Full: the slot being written holds the oldest ID, which is forgotten.
    if (this.#size === ring.length) this.#remove(ring[this.#head]!);
    else this.#size++;
    ring[this.#head] = id;
    this.#head = this.#head + 1 === ring.length ? 0 : this.#head + 1;
    return true;
  }

  get size(): number {
    return this.#size;
  }

  /** The slot an ID's probe starts at (mixes the low and the high 32 bits). */
  #home(id: number): number {
    return (Math.imul(id | 0, 0x9e3779b1) ^ ((id / 4_294_967_296) | 0)) & this.#mask;
  }

  /** False when `id` is there already. The table is never more than half full: a slot is free. */
  #insert(id: number): boolean {
    const slots = this.#slots;
    for (let i = this.#home(id); ; i = (i + 1) & this.#mask) {
      if (slots[i] === id) return false;
      if (slots[i] === 0) {
        slots[i] = id;
        return true;
      }
    }
  }

  /** Removes `id`, moving later entries of its probe chain back into the hole. */
  #remove(id: number): void {
    const slots = this.#slots;
    const mask = this.#mask;
    let hole = this.#home(id);
    while (slots[hole] !== id) {
      if (slots[hole] === 0) return;
      hole = (hole + 1) & mask;
    }
    for (let j = (hole + 1) & mask; slots[j] !== 0; j = (j + 1) & mask) {
      const home = this.#home(slots[j]!);
      // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
      const reachable = j > hole ? home > hole && home <= j : home > hole || home <= j;
      if (!reachable) {
        slots[hole] = slots[j]!;
        hole = j;
      }
    }
    slots[hole] = 0;
  }
}
