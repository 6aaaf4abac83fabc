// LatestWriter: persists the latest state of one value, coalescing writes that pile up behind a slow one.

/**
 * Runs `write` so that at most one write is in progress and at most one waits behind it. Every
 * `schedule()` made while a write waits joins that write, which reads the state when it starts,
 * so a burst of changes costs one write of the newest state instead of one write per change.
 *
 * @example
 * const writer = new LatestWriter(() => store.set("state", snapshot()));
 * state.count++;
 * await writer.schedule(); // resolves once a write that saw this change is done
 */
export class LatestWriter {
  readonly #write: () => Promise<void>;
  #tail: Promise<void> = Promise.resolve();
  #waiting: Promise<void> | undefined;

  constructor(write: () => Promise<void>) {
    this.#write = write;
  }

  /** Resolves when a write that started after this call has finished; rejects if that write fails. */
  schedule(): Promise<void> {
    if (this.#waiting) return this.#waiting;
    const next = this.#tail.then(() => {
      this.#waiting = undefined;
      return this.#write();
    });
    this.#waiting = next;
    this.#tail = next.catch(() => undefined);
    return next;
  }

  /** Resolves when every scheduled write has ended (failed ones included). */
  settled(): Promise<void> {
    return this.#tail;
  }
}
