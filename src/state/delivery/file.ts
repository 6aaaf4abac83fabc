// The file delivery store: the watermark and the reply journal as an append-only file beside the storage file.
import type { KeyValueStore } from "../key-value/store.js";
import { AppendJournal, type JournalFs } from "../journal.js";
import {
  checkIds,
  checkIntent,
  checkLegacyReplies,
  checkWatermark,
  DamagedDeliveryState,
  NewerDeliveryFormat,
  ReplyBook,
} from "./records.js";
import type { DeliverySnapshot, DeliveryState, DeliveryStore, ReplyIntent } from "./store.js";

export interface FileDeliveryStoreOptions {
  /** The journal file, e.g. `data/bot.json.delivery.jsonl`. */
  path: string;
  /** Incoming messages whose replies are remembered. Default 500. */
  capacity?: number;
  /** Fsync every record: survives a power cut too, at a disk flush per record. Default false. */
  fsync?: boolean;
  /**
   * Where versions before the journal kept this state (the `topicbot:runtime` namespace of the
   * file store), read once when the journal does not exist yet; `legacyFile` names it in errors.
   */
  legacy?: KeyValueStore;
  legacyFile?: string;
  fs?: JournalFs;
  /**
   * A journal damaged so that delivery state is lost (a record that is not one, the watermark
   * gone while replies remain): `fail` (default) stops with an error naming the file and line;
   * `recover` drops what cannot be read and starts from the safest point left, with a warning.
   */
  onDamage?: DamagePolicy;
  /** Told of each recovery (and of a record cut short by a power cut, which is always dropped). */
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

/** What a damaged journal or store file does at start (`storage.onDamage`, `bot start --recover`). */
export type DamagePolicy = "fail" | "recover";

/**
 * The journal format this version reads, and writes as the first record of a new or compacted journal
 * (`{"v":1}`): a newer version's header is an error, not records misread.
 */
const JOURNAL_VERSION = 1;
const HEADER = `{"v":${JOURNAL_VERSION}}`;

/** Records appended beyond what compaction keeps before the file is compacted. */
const COMPACT_AFTER = 10_000;

/**
 * Longest an outcome or watermark record waits to share a write with the next intents. Under load
 * intents come sooner, so a turn's replies cost one `write(2)` together, outcomes included; idle,
 * the records go out this much later, which a crash can only cost a read-back (outcomes) or a
 * message handled again whose replies the journal already holds (the watermark).
 */
const LAZY_MS = 20;

/**
 * The journal record of an intent, `{"i":intent}`. A fast path for every reply: its numbers
 * written as they are and only its parameters through `JSON.stringify` (a third less than
 * stringifying the whole intent), in the text `JSON.stringify` gives for an intent made by the
 * reply guard (the same keys in the same order); anything else (numbers that are not whole,
 * keys missing or not known here) goes through `JSON.stringify` whole.
 */
function intentRecord(intent: ReplyIntent): string {
  const { incomingId, index, params, floor, at, willEdit } = intent;
  let keys = 0;
  for (const _ in intent) keys++;
  if (
    keys !== (willEdit === undefined ? 5 : 6) ||
    typeof params !== "object" ||
    params === null ||
    !Number.isSafeInteger(incomingId) ||
    !Number.isSafeInteger(index) ||
    !Number.isSafeInteger(floor) ||
    !Number.isSafeInteger(at) ||
    (willEdit !== undefined && willEdit !== true)
  )
    return `{"i":${JSON.stringify(intent)}}`;
  const edit = willEdit ? `,"willEdit":true` : "";
  return `{"i":{"incomingId":${incomingId},"index":${index},"params":${JSON.stringify(params)},"floor":${floor},"at":${at}${edit}}}`;
}

/** Errors that mean the journal's disk takes no writes (read-only, no permission, full). */
const UNWRITABLE = new Set(["EROFS", "EACCES", "EPERM", "ENOSPC"]);

/**
 * Opens the journal for appending. A disk that takes no writes stops the start with an error
 * saying what to do: without the journal a restart would skip or repeat messages (docs/reliability.md,
 * "Storage that fails": at start the bot refuses, while running it keeps answering).
 */
function openJournal(options: FileDeliveryStoreOptions): AppendJournal {
  try {
    return AppendJournal.open({ path: options.path, fsync: options.fsync, fs: options.fs });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !UNWRITABLE.has(code)) throw error;
    throw new Error(
      `storage: cannot open the delivery journal ${options.path} for writing (${code}: ${(error as Error).message}). ` +
        "The bot records there which messages it handled and answered; without it a restart would skip " +
        "or repeat messages, so it does not start. Make the directory writable (a read-only mount?), point " +
        "storage.path at a writable place, or choose `storage: { type: memory }` to run with no delivery state across restarts",
      { cause: error },
    );
  }
}

/** One journal line as a record; `where` names it in the error. */
function readRecord(text: string, where: string): JournalRecord {
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    throw new DamagedDeliveryState(where, "not a JSON record");
  }
  if (record === null || typeof record !== "object" || Array.isArray(record))
    throw new DamagedDeliveryState(where, `not a journal record: ${text.slice(0, 80)}`);
  return record as JournalRecord;
}

interface JournalRecord {
  v?: unknown;
  w?: unknown;
  i?: unknown;
  s?: unknown;
}

/** The header's format version: a newer or unknown one is an error in every mode (its records mean other things). */
function checkVersion(value: unknown, where: string): void {
  if (value === JOURNAL_VERSION) return;
  if (typeof value === "number" && value > JOURNAL_VERSION)
    throw new NewerDeliveryFormat(
      where,
      `written by a newer topicbot (journal format ${value}; this version reads ${JOURNAL_VERSION})`,
    );
  const error = new DamagedDeliveryState(where, `unknown journal format ${JSON.stringify(value)}`);
  error.unknownFormat = true;
  throw error;
}

/** Replays an intent or outcome record into `book`; returns its incoming message ID. */
function replayReply(record: JournalRecord, book: ReplyBook, where: string, text: string): number {
  if (record.i !== undefined) {
    const intent = checkIntent(record.i, `${where}, key "i"`);
    book.intend(intent);
    return intent.incomingId;
  }
  if (Array.isArray(record.s)) {
    const [incomingId, index, ids] = record.s as unknown[];
    if (typeof incomingId !== "number" || typeof index !== "number")
      throw new DamagedDeliveryState(`${where}, key "s"`, "expected [incoming ID, index, IDs]");
    book.sent(incomingId, index, checkIds(ids, `${where}, key "s"`, "ids"));
    return incomingId;
  }
  throw new DamagedDeliveryState(where, `unknown record ${text.slice(0, 80)}`);
}

/**
 * Keeps delivery state in an append-only journal, one JSON record a line: `{"w":state}` for the
 * watermark, `{"i":intent}` before a reply is sent, `{"s":[incomingId, index, ids]}` after.
 * Intents are group-committed: every intent of one turn of the event loop (a poll's messages, the
 * replies whose lanes a burst of answers freed) goes out in one synchronous `write(2)` at the end
 * of that turn, and `intend` resolves after it, so a SIGKILL after any `intend` resolved cannot
 * lose that intent (and with `fsync`, a power cut cannot either). Outcomes and the watermark, which
 * the store contract lets be lazier, wait (at most 20 ms) to go out in the same write as the next
 * intents (the watermark goes at most once per 20 ms: it changes every turn under load, and only
 * the newest counts); `flush` and `close` write them at once. When the journal grows past what it holds by
 * 10,000 records it is rewritten (atomically) with only the newest watermark and the remembered
 * replies: cost per record stays O(1) on average.
 *
 * @example
 * const store = await openFileDeliveryStore({ path: "data/bot.json.delivery.jsonl" });
 * const { watermark, replies } = await store.load();
 */
export class FileDeliveryStore implements DeliveryStore {
  readonly #journal: AppendJournal;
  readonly #book: ReplyBook;
  /** The newest watermark known (loaded, saved, or last read from `#watermarkOf`). */
  #watermark: DeliveryState | undefined;
  /** Where the newest watermark is read when it is written (`saveWatermarkLater`), if given. */
  #watermarkOf: (() => DeliveryState | undefined) | undefined;
  /** Outcome records not written yet, oldest first. */
  #lazy: string[] = [];
  /** A watermark waits to be written: the newest is written then, after the outcomes. */
  #lazyWatermark = false;
  /** When the oldest record still waiting was queued (`performance.now()`). */
  #lazySince = 0;
  /** When the watermark waiting began to wait (`performance.now()`): see `#watermarkDue`. */
  #watermarkSince = 0;
  /**
   * Writes what waits once it has waited LAZY_MS. Armed by the first record to wait and not
   * disarmed by an intent's write (that would cost a timer per reply under load): when it fires
   * it writes only records that waited long enough, and re-arms for the rest.
   */
  #lazyTimer: NodeJS.Timeout | undefined;
  /** Why the last write failed, until one succeeds: later records report it too. */
  #failing: unknown;
  /** Intent records of this turn, written together at its end (`#commitGroup`). */
  #group: string[] = [];
  /** What every `intend` of this turn returned: settled by the group's write. */
  #groupWritten: Promise<void> | undefined;
  #groupSettle: { resolve: () => void; reject: (error: unknown) => void } | undefined;

  private constructor(journal: AppendJournal, book: ReplyBook, watermark?: DeliveryState) {
    this.#journal = journal;
    this.#book = book;
    this.#watermark = watermark;
  }

  /**
   * Opens the journal, checks every record, and migrates the older key-value state once. Damage
   * that loses delivery state is an error naming the file and line, or with `onDamage: recover` a
   * logged recovery (see `FileDeliveryStoreOptions.onDamage`); never a silent fresh start.
   */
  static async open(options: FileDeliveryStoreOptions): Promise<FileDeliveryStore> {
    const journal = openJournal(options);
    const recover = options.onDamage === "recover";
    const warn = options.warn ?? (() => undefined);
    if (journal.tornTail)
      warn(
        { journal: options.path, line: journal.lines.length + 1 },
        `delivery journal ${options.path}: its last record (line ${journal.lines.length + 1}) was cut short, as a power cut or a full disk leaves it; ` +
          "dropped, and the delivery state read from the whole records before it",
      );
    const book = new ReplyBook(options.capacity ?? 500);
    let watermark: DeliveryState | undefined;
    let replies = 0;
    let lowestIncoming = Infinity;
    let recovered = false;
    const fresh = journal.lines.length === 0;
    for (const { line, text } of journal.lines) {
      const where = `delivery journal ${options.path} line ${line}`;
      try {
        const record = readRecord(text, where);
        if (record.v !== undefined) checkVersion(record.v, where);
        else if (record.w !== undefined) watermark = checkWatermark(record.w, `${where}, key "w"`);
        else {
          const incomingId = replayReply(record, book, where, text);
          replies++;
          if (incomingId < lowestIncoming) lowestIncoming = incomingId;
        }
      } catch (error) {
        if (!recover || !(error instanceof DamagedDeliveryState) || error.unknownFormat)
          throw error;
        recovered = true;
        warn(
          { journal: options.path, line },
          `${error.message.split(". ")[0]}; skipped (storage.onDamage: recover)`,
        );
      }
    }
    if (watermark === undefined && replies > 0) {
      // Replies without a watermark: the watermark records are gone (a truncated or edited file).
      const where = `delivery journal ${options.path}`;
      const problem = `it holds ${replies} reply records but no watermark (the records saying which messages were handled are gone)`;
      if (!recover)
        throw new DamagedDeliveryState(
          where,
          `${problem}. Start with \`bot start --recover\` (storage.onDamage: recover) to rebuild it from the oldest message it holds replies for`,
        );
      watermark = { lastHandledId: Math.max(0, lowestIncoming - 1), handledAbove: [] };
      recovered = true;
      warn(
        { journal: options.path, lastHandledId: watermark.lastHandledId },
        `${where}: ${problem}; recovered from message ${watermark.lastHandledId} (storage.onDamage: recover): ` +
          "messages after it are caught up and handled again, the replies the journal holds are not sent twice",
      );
    }
    const store = new FileDeliveryStore(journal, book, watermark);
    // A new journal says its format first (with its first write), so a later version's journal is
    // told from damage.
    if (fresh) store.#lazy.push(HEADER);
    if (fresh && options.legacy) await store.#migrate(options.legacy, options.legacyFile);
    // Rewritten as recovered, so the next start reads it whole and warns no more.
    if (recovered) store.#compact();
    return store;
  }

  /** Takes over the watermark and reply ledger a store file of an earlier version holds. */
  async #migrate(legacy: KeyValueStore, file = "the storage file"): Promise<void> {
    const delivery = await legacy.get("delivery");
    const replies = await legacy.get("replies");
    if (delivery !== undefined)
      this.#watermark = checkWatermark(delivery, `${file}, key "topicbot:runtime/delivery"`);
    if (replies !== undefined)
      for (const record of checkLegacyReplies(replies, `${file}, key "topicbot:runtime/replies"`))
        this.#book.put(record);
    if (delivery !== undefined || replies !== undefined) this.#compact();
  }

  async load(): Promise<DeliverySnapshot> {
    return { watermark: this.#watermark, replies: this.#book.records() };
  }

  async saveWatermark(state: DeliveryState): Promise<void> {
    this.#watermark = state;
    this.#watermarkOf = undefined;
    this.#later(undefined, true);
  }

  saveWatermarkLater(state: () => DeliveryState | undefined): void {
    this.#watermarkOf = state;
    this.#later(undefined, true);
  }

  /** The newest watermark, read from the ledger when it hands its state over lazily. */
  #currentWatermark(): DeliveryState | undefined {
    const state = this.#watermarkOf?.();
    if (state !== undefined) this.#watermark = state;
    return this.#watermark;
  }

  /**
   * Queues the intent for this turn's group write and resolves once that write is done (rejects
   * if it failed). Every intent of a turn shares one write and one promise.
   */
  intend(intent: ReplyIntent): Promise<void> {
    this.#book.intend(intent);
    this.#group.push(intentRecord(intent));
    if (this.#groupWritten === undefined) {
      this.#groupWritten = new Promise<void>((resolve, reject) => {
        this.#groupSettle = { resolve, reject };
      });
      setImmediate(() => this.#commitGroup());
    }
    return this.#groupWritten;
  }

  /** Writes this turn's intents (and the records waiting) in one append, then settles their `intend`s. */
  #commitGroup(): void {
    const settle = this.#groupSettle;
    if (settle === undefined) return; // written already (a flush or close came first)
    const group = this.#group;
    this.#group = [];
    this.#groupWritten = undefined;
    this.#groupSettle = undefined;
    try {
      this.#writeLazy(group);
    } catch (error) {
      settle.reject(error);
      return;
    }
    settle.resolve();
  }

  async sent(incomingId: number, index: number, ids: number[]): Promise<void> {
    this.sentNow(incomingId, index, ids);
  }

  sentNow(incomingId: number, index: number, ids: number[]): void {
    this.#book.sent(incomingId, index, ids);
    this.#later(`{"s":[${incomingId},${index},[${ids.join(",")}]]}`);
  }

  /** Writes the intents, outcomes and watermark still waiting. */
  async flush(): Promise<void> {
    this.#commitGroup();
    this.#writeLazy();
  }

  async close(): Promise<void> {
    clearTimeout(this.#lazyTimer);
    this.#lazyTimer = undefined;
    try {
      this.#commitGroup();
      this.#writeLazy();
    } finally {
      this.#journal.close();
    }
  }

  /** The remembered replies (see `DeliveryStore.replies`). */
  get replies(): ReplyBook {
    return this.#book;
  }

  /** The journal file. */
  get path(): string {
    return this.#journal.path;
  }

  /**
   * Queues an outcome record, or a watermark, that may wait for the next intent's write (or
   * LAZY_MS). While writes fail it is kept for the next attempt and the failure is thrown, so the
   * caller reports it.
   */
  #later(record: string | undefined, watermark = false): void {
    if (this.#lazy.length === 0 && !this.#lazyWatermark) this.#lazySince = performance.now();
    if (record !== undefined) this.#lazy.push(record);
    if (watermark && !this.#lazyWatermark) {
      this.#watermarkSince = performance.now();
      this.#lazyWatermark = true;
    }
    if (this.#failing !== undefined) throw this.#failing;
    this.#lazyTimer ??= setTimeout(() => this.#lazyDue(), LAZY_MS);
  }

  /** The lazy timer: writes what has waited LAZY_MS, or waits on for what has not yet. */
  #lazyDue(): void {
    this.#lazyTimer = undefined;
    if (this.#lazy.length === 0 && !this.#lazyWatermark) return;
    const waited = performance.now() - this.#lazySince;
    if (waited < LAZY_MS) {
      this.#lazyTimer = setTimeout(() => this.#lazyDue(), LAZY_MS - waited);
      return;
    }
    try {
      this.#writeLazy();
    } catch {
      // Kept: the next intent, flush or close writes them again and reports a failure.
    }
  }

  /**
   * Whether the waiting watermark goes out with this turn's intents: only once it has waited
   * LAZY_MS. Under load the watermark changes every turn and an intent write follows every turn
   * too; writing it each time cost a JSON record of every handled ID above the oldest running
   * one (~100 at 64 replies in flight) per reply. Only the newest is ever read, so one every
   * LAZY_MS is what the contract promises anyway (a crash costs the same read-back as before).
   */
  #watermarkDue(intents: readonly string[] | undefined): boolean {
    return (
      this.#lazyWatermark &&
      (intents === undefined || performance.now() - this.#watermarkSince >= LAZY_MS)
    );
  }

  /**
   * Writes every waiting record (the watermark only when `#watermarkDue`), then `intents` if
   * given, in one append. On failure the waiting records stay waiting (the intents do not: their
   * callers hear of the failure) and it throws.
   */
  #writeLazy(intents?: readonly string[]): void {
    const withWatermark = this.#watermarkDue(intents);
    const waiting = this.#lazy.length;
    if (withWatermark) {
      const watermark = this.#currentWatermark();
      if (watermark !== undefined) this.#lazy.push(JSON.stringify({ w: watermark }));
    }
    if (intents !== undefined) for (const intent of intents) this.#lazy.push(intent);
    if (this.#lazy.length === 0) {
      if (withWatermark) this.#lazyWatermark = false; // nothing to save yet
      return;
    }
    try {
      this.#journal.appendMany(this.#lazy);
    } catch (error) {
      this.#lazy.length = waiting;
      this.#failing = error;
      throw error;
    }
    this.#failing = undefined;
    this.#lazy = [];
    if (withWatermark) this.#lazyWatermark = false;
    // A watermark left waiting is now the oldest record waiting; the lazy timer is still armed
    // (only its firing disarms it), and writes it once it has waited LAZY_MS.
    else if (this.#lazyWatermark) this.#lazySince = this.#watermarkSince;
    if (this.#journal.appended > COMPACT_AFTER) this.#compact();
  }

  /** Rewrites the journal as the newest watermark and the remembered replies. */
  #compact(): void {
    const lines: string[] = [HEADER];
    const watermark = this.#currentWatermark();
    if (watermark) lines.push(JSON.stringify({ w: watermark }));
    for (const r of this.#book.records()) {
      if (r.intent) lines.push(JSON.stringify({ i: r.intent }));
      if (r.ids) lines.push(`{"s":[${r.incomingId},${r.index},[${r.ids.join(",")}]]}`);
    }
    this.#journal.rewrite(lines);
    // Everything waiting is in the rewrite (the book and the watermark are current).
    this.#lazy = [];
    this.#lazyWatermark = false;
  }
}
