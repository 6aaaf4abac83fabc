// Storage health: write failures counted, logged once per failure streak, and shown as degraded until a write succeeds.
import type { Logger } from "../log/logger.js";

export interface StorageHealthOptions {
  /** Called once when a streak of failures starts (the first failure), with what failed. */
  onStreakStart(error: unknown, what: string): void;
  /** Called when a write succeeds after a streak, with how many failed in it. */
  onStreakEnd?(failures: number, what: string): void;
  /** Called for every failure (a metric counts them). */
  onFailure?(what: string): void;
}

/**
 * Tracks whether storage writes work. A disk that is full or read-only fails every write: this
 * says so once (not once per write), keeps the count, and reports degraded until one succeeds.
 *
 * @example
 * const health = new StorageHealth({ onStreakStart: (err, what) => log.error({ err }, `${what} failed`) });
 * try { await write(); health.ok("journal"); } catch (error) { health.failed(error, "journal"); }
 */
export class StorageHealth {
  readonly #o: StorageHealthOptions;
  /** Failures in a row, by what failed (a store). */
  readonly #streaks = new Map<string, number>();
  #total = 0;
  #lastError: unknown;

  constructor(options: StorageHealthOptions) {
    this.#o = options;
  }

  /** A write to `what` (a store's name, e.g. `the delivery journal data/bot.json.delivery.jsonl`) failed. */
  failed(error: unknown, what: string): void {
    this.#total++;
    this.#lastError = error;
    this.#o.onFailure?.(what);
    const streak = this.#streaks.get(what) ?? 0;
    this.#streaks.set(what, streak + 1);
    if (streak === 0) this.#o.onStreakStart(error, what);
  }

  /** A write to `what` succeeded. */
  ok(what: string): void {
    if (this.#streaks.size === 0) return;
    const failures = this.#streaks.get(what);
    if (failures === undefined) return;
    this.#streaks.delete(what);
    this.#o.onStreakEnd?.(failures, what);
  }

  /** True while the last write to some store failed. */
  get degraded(): boolean {
    return this.#streaks.size > 0;
  }

  /** The stores whose last write failed. */
  get failing(): string[] {
    return [...this.#streaks.keys()];
  }

  /** Failed writes since start. */
  get failures(): number {
    return this.#total;
  }

  /** The error of the most recent failure, if any. */
  get lastError(): unknown {
    return this.#lastError;
  }
}

/**
 * The health every bot uses: a streak logged once when it starts and once when it ends, each
 * failure counted by `countFailure` (the `topicbot_storage_write_failures_total` metric).
 */
export function loggedStorageHealth(
  log: Pick<Logger, "error" | "info">,
  countFailure: (what: string) => void,
): StorageHealth {
  return new StorageHealth({
    onStreakStart: (error, what) =>
      log.error(
        { err: error, store: what },
        `storage: writing ${what} failed; retrying with each change`,
      ),
    onStreakEnd: (failures, what) =>
      log.info({ failures, store: what }, `storage: writing ${what} works again`),
    onFailure: countFailure,
  });
}

/** Stopping could not write everything to storage: the message lists what was not saved. */
export class UnsavedStorageError extends Error {
  /** `bot start` exits with this code when it stops with unsaved storage. */
  static readonly EXIT_CODE = 4;
  /** What was not saved, each with its reason. */
  readonly unsaved: string[];

  constructor(unsaved: string[]) {
    super(`storage: could not save ${unsaved.join("; and ")}`);
    this.name = "UnsavedStorageError";
    this.unsaved = unsaved;
  }
}
