// A set of message IDs (positive integers) in one typed array: no allocation per add or delete.

/**
 * An open-addressing hash set of positive integer IDs in a Float64Array (linear probing, 0 marks
 * an empty slot, a delete shifts its probe chain back so no tombstones build up), kept at most
 * half full: it doubles when it would pass that. A fast path for the runtime's per-message ID
 * bookkeeping (recent IDs, running claims): a `Set` that gains and loses one ID per message
 * reallocates its table every few hundred of them, and this runs for every message.
 */
export class IdSet {
  #slots: Float64Array;
  #mask: number;
  #size = 0;

  /** Room for `capacity` IDs before the table grows. */
  constructor(capacity = 16) {
    let slots = 2;
    while (slots < capacity * 2) slots *= 2;
    this.#slots = new Float64Array(slots);
    this.#mask = slots - 1;
  }

  get size(): number {
    return this.#size;
  }

  has(id: number): boolean {
    const slots = this.#slots;
    for (let i = this.#home(id); ; i = (i + 1) & this.#mask) {
      if (slots[i] === id) return true;
      if (slots[i] === 0) return false;
    }
  }

  /** Adds `id` (a positive integer); false when it was there already. */
  add(id: number): boolean {
    if (!Number.isInteger(id) || id < 1)
      throw new RangeError(`IdSet takes positive integer IDs, not ${id}`);
    if ((this.#size + 1) * 2 > this.#slots.length) this.#grow();
    const slots = this.#slots;
    for (let i = this.#home(id); ; i = (i + 1) & this.#mask) {
      if (slots[i] === id) return false;
      if (slots[i] === 0) {
        slots[i] = id;
        this.#size++;
        return true;
      }
    }
  }

  /** Removes `id`, moving later entries of its probe chain back into the hole; false when absent. */
  delete(id: number): boolean {
    const slots = this.#slots;
    const mask = this.#mask;
    let hole = this.#home(id);
    while (slots[hole] !== id) {
      if (slots[hole] === 0) return false;
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
    this.#size--;
    return true;
  }

  /** The slot an ID's probe starts at (mixes the low and the high 32 bits). */
  #home(id: number): number {
    return (Math.imul(id | 0, 0x9e3779b1) ^ ((id / 4_294_967_296) | 0)) & this.#mask;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Float64Array(old.length * 2);
    this.#mask = this.#slots.length - 1;
    this.#size = 0;
    for (const id of old) if (id !== 0) this.add(id);
  }
}
