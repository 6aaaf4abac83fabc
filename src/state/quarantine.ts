// Poison messages: failures and overruns counted per message across restarts, and the dead-letter list of those not run again.
import type { KeyValueStore } from "./key-value/store.js";

/** Failures (or overruns) after which a message is quarantined. */
export const DEFAULT_MAX_FAILURES = 3;

/** The keys of the runtime namespace that hold the counts and the dead letters. */
export const ATTEMPTS_KEY = "handler-failures";
export const DEAD_LETTERS_KEY = "dead-letters";

/** A message that is not run again: why, and where it came from. */
export interface DeadLetter {
  messageId: number;
  plugin: string;
  /** `command <name>`, `listener`, ... */
  handler: string;
  /** How many times its handler failed, overran its limit, or was still running at a stop or kill. */
  failures: number;
  /** The last failure, in one line. */
  reason: string;
  /** Epoch ms when it was quarantined. */
  at: number;
}

/** One message's failures so far. */
interface Attempts {
  count: number;
  plugin: string;
  handler: string;
  reason: string;
}

export interface QuarantineOptions {
  /** The runtime namespace of the bot's storage. */
  store: KeyValueStore;
  /** Failures before a message is quarantined; false: never (failures are still not retried). */
  maxFailures?: number | false;
  now?: () => number;
  /** Told once per message quarantined. */
  onQuarantined?(letter: DeadLetter): void;
}

/** Most messages whose failures are counted (the oldest counts are forgotten past it). */
const MAX_COUNTED = 1_000;
/** Most dead letters kept (the oldest are dropped past it). */
const MAX_DEAD_LETTERS = 1_000;

/**
 * Counts, per message, the times its handler failed: threw, overran its time limit, or was still
 * running when the process stopped or was killed (counted at half its limit, written at once, so
 * a SIGKILL does not lose the count). A message whose handler failed `maxFailures` times is a
 * dead letter: kept in storage, shown by `bot check`, the dev console and `/metrics`, and skipped
 * when it comes again (a restart's catch-up hands unfinished messages over again: a handler that
 * hangs or crashes the bot every time would otherwise take its slot, or the bot, after every
 * restart). Reads are in memory; writes go to the store as they happen.
 *
 * @example
 * const quarantine = new Quarantine({ store: storage.namespace("topicbot:runtime") });
 * await quarantine.load();
 * if (quarantine.has(message.id)) return; // not run again
 */
export class Quarantine {
  readonly #store: KeyValueStore;
  readonly #max: number | false;
  readonly #now: () => number;
  readonly #onQuarantined: ((letter: DeadLetter) => void) | undefined;
  #attempts = new Map<number, Attempts>();
  #dead = new Map<number, DeadLetter>();

  constructor(options: QuarantineOptions) {
    this.#store = options.store;
    this.#max = options.maxFailures ?? DEFAULT_MAX_FAILURES;
    this.#now = options.now ?? Date.now;
    this.#onQuarantined = options.onQuarantined;
  }

  /** Reads the counts and dead letters (once, at start). */
  async load(): Promise<void> {
    const attempts = await this.#store.get<[number, Attempts][]>(ATTEMPTS_KEY);
    const dead = await this.#store.get<DeadLetter[]>(DEAD_LETTERS_KEY);
    if (Array.isArray(attempts))
      this.#attempts = new Map(attempts.filter((a) => Array.isArray(a) && Number.isInteger(a[0])));
    if (Array.isArray(dead))
      this.#dead = new Map(
        dead.filter((d) => Number.isInteger(d?.messageId)).map((d) => [d.messageId, d]),
      );
  }

  /** True when `messageId` is a dead letter: it is not run again. */
  has(messageId: number): boolean {
    return this.#dead.size > 0 && this.#dead.has(messageId);
  }

  /** The dead letters, oldest first. */
  list(): DeadLetter[] {
    return [...this.#dead.values()];
  }

  get size(): number {
    return this.#dead.size;
  }

  /** Failures counted so far for a message not quarantined (0 when none). */
  failuresOf(messageId: number): number {
    return this.#attempts.get(messageId)?.count ?? 0;
  }

  /**
   * Counts one failure of `messageId`'s handler; quarantines it at `maxFailures`. `urgent` writes
   * the store at once (a handler that hangs may be followed by a kill): resolves once written.
   */
  async failed(
    messageId: number,
    plugin: string,
    handler: string,
    reason: string,
    urgent = false,
  ): Promise<void> {
    if (this.#dead.has(messageId)) return;
    const count = (this.#attempts.get(messageId)?.count ?? 0) + 1;
    this.#attempts.delete(messageId);
    if (this.#max !== false && count >= this.#max) {
      const letter: DeadLetter = {
        messageId,
        plugin,
        handler,
        failures: count,
        reason,
        at: this.#now(),
      };
      this.#dead.set(messageId, letter);
      while (this.#dead.size > MAX_DEAD_LETTERS) this.#dead.delete(this.#dead.keys().next().value!);
      this.#onQuarantined?.(letter);
    } else {
      this.#attempts.set(messageId, { count, plugin, handler, reason });
      while (this.#attempts.size > MAX_COUNTED)
        this.#attempts.delete(this.#attempts.keys().next().value!);
    }
    await this.#save(urgent);
  }

  /** `messageId`'s handler ended well: its count (if any) is dropped. Cheap when there is none. */
  succeeded(messageId: number): void {
    if (this.#attempts.size === 0 || !this.#attempts.delete(messageId)) return;
    void this.#save(false).catch(() => undefined);
  }

  /** Takes `messageId` off the dead-letter list (it may run again when it comes again). */
  async release(messageId: number): Promise<boolean> {
    if (!this.#dead.delete(messageId)) return false;
    await this.#save(true);
    return true;
  }

  async #save(urgent: boolean): Promise<void> {
    await this.#store.set(ATTEMPTS_KEY, [...this.#attempts]);
    await this.#store.set(DEAD_LETTERS_KEY, [...this.#dead.values()]);
    if (urgent) await this.#store.flush();
  }
}

/** The dead letters a store holds, for `bot check` (no bot running). */
export async function readDeadLetters(runtime: KeyValueStore): Promise<DeadLetter[]> {
  const dead = await runtime.get<DeadLetter[]>(DEAD_LETTERS_KEY);
  return Array.isArray(dead) ? dead : [];
}
