// The file delivery store: the watermark and the reply journal as an append-only file beside the storage file.
import type { KeyValueStore } from "../../storage/store.js";
import { AppendJournal, type JournalFs } from "../../storage/journal.js";
import {
  checkIds,
  checkIntent,
  checkLegacyReplies,
  checkWatermark,
  DamagedDeliveryState,
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
}

/** Records appended beyond what compaction keeps before the file is compacted. */
const COMPACT_AFTER = 10_000;

/**
 * Keeps delivery state in an append-only journal, one JSON record a line: `{"w":state}` for the
 * watermark, `{"i":intent}` before a reply is sent, `{"s":[incomingId, index, ids]}` after. Every
 * record is written with a synchronous `write(2)` before the call resolves, so a SIGKILL right
 * after `intend` resolves cannot lose the intent; with `fsync` a power cut cannot either. When
 * the journal grows past what it holds by 10,000 records it is rewritten (atomically) with only
 * the newest watermark and the remembered replies: cost per record stays O(1) on average.
 *
 * @example
 * const store = await openFileDeliveryStore({ path: "data/bot.json.delivery.jsonl" });
 * const { watermark, replies } = await store.load();
 */
export class FileDeliveryStore implements DeliveryStore {
  readonly #journal: AppendJournal;
  readonly #book: ReplyBook;
  #watermark: DeliveryState | undefined;

  private constructor(journal: AppendJournal, book: ReplyBook, watermark?: DeliveryState) {
    this.#journal = journal;
    this.#book = book;
    this.#watermark = watermark;
  }

  /** Opens the journal, checks every record, and migrates the older key-value state once. */
  static async open(options: FileDeliveryStoreOptions): Promise<FileDeliveryStore> {
    const journal = AppendJournal.open({
      path: options.path,
      fsync: options.fsync,
      fs: options.fs,
    });
    const book = new ReplyBook(options.capacity ?? 500);
    let watermark: DeliveryState | undefined;
    const fresh = journal.lines.length === 0;
    for (const { line, text } of journal.lines) {
      const where = `delivery journal ${options.path} line ${line}`;
      let record: { w?: unknown; i?: unknown; s?: unknown };
      try {
        record = JSON.parse(text) as typeof record;
      } catch {
        throw new DamagedDeliveryState(where, "not a JSON record");
      }
      if (record.w !== undefined) watermark = checkWatermark(record.w, `${where}, key "w"`);
      else if (record.i !== undefined) book.intend(checkIntent(record.i, `${where}, key "i"`));
      else if (Array.isArray(record.s)) {
        const [incomingId, index, ids] = record.s as unknown[];
        if (typeof incomingId !== "number" || typeof index !== "number")
          throw new DamagedDeliveryState(`${where}, key "s"`, "expected [incoming ID, index, IDs]");
        book.sent(incomingId, index, checkIds(ids, `${where}, key "s"`, "ids"));
      } else throw new DamagedDeliveryState(where, `unknown record ${text.slice(0, 80)}`);
    }
    const store = new FileDeliveryStore(journal, book, watermark);
    if (fresh && options.legacy) await store.#migrate(options.legacy, options.legacyFile);
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
    this.#append(JSON.stringify({ w: state }));
  }

  async intend(intent: ReplyIntent): Promise<void> {
    this.#book.intend(intent);
    this.#append(JSON.stringify({ i: intent }));
  }

  async sent(incomingId: number, index: number, ids: number[]): Promise<void> {
    this.#book.sent(incomingId, index, ids);
    this.#append(`{"s":[${incomingId},${index},[${ids.join(",")}]]}`);
  }

  /** Every record is on disk when its call resolves: nothing waits. */
  async flush(): Promise<void> {}

  async close(): Promise<void> {
    this.#journal.close();
  }

  /** The journal file. */
  get path(): string {
    return this.#journal.path;
  }

  #append(record: string): void {
    this.#journal.append(record);
    if (this.#journal.appended > COMPACT_AFTER) this.#compact();
  }

  /** Rewrites the journal as the newest watermark and the remembered replies. */
  #compact(): void {
    const lines: string[] = [];
    if (this.#watermark) lines.push(JSON.stringify({ w: this.#watermark }));
    for (const r of this.#book.records()) {
      if (r.intent) lines.push(JSON.stringify({ i: r.intent }));
      if (r.ids) lines.push(`{"s":[${r.incomingId},${r.index},[${r.ids.join(",")}]]}`);
    }
    this.#journal.rewrite(lines);
  }
}
