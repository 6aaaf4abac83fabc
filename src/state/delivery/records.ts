// Reply records in memory (bounded, oldest incoming message forgotten first) and the checks persisted delivery state must pass.
import type { SendParams } from "../../api/messages.js";
import type { DeliveryState, ReplyIntent, ReplyRecord } from "./shapes.js";

/**
 * The replies of the last `capacity` incoming messages: for each, its intents and outcomes by
 * reply index. Stores keep one to write snapshots; the runtime keeps one to answer lookups.
 *
 * @example
 * const book = new ReplyBook(500);
 * book.intend({ incomingId: 7, index: 0, params, floor: 6, at: Date.now() });
 * book.sent(7, 0, [8]);
 * book.get(7, 0); // { incomingId: 7, index: 0, intent, ids: [8] }
 */
export class ReplyBook {
  readonly #entries = new Map<number, ReplyRecord[]>();
  readonly #onForget: ((incomingId: number) => void) | undefined;
  /**
   * The incoming IDs in the order they were entered, in a ring: once full, the slot the next one
   * goes into holds the oldest. Finding the oldest through the map's iterator cost a walk over the
   * entries deleted since the map last rehashed (a few hundred ns for every incoming message).
   */
  readonly #order: Float64Array;
  #next = 0;

  /** `onForget` hears of each incoming message forgotten to make room. */
  constructor(capacity: number, onForget?: (incomingId: number) => void) {
    if (capacity < 1) throw new RangeError("reply memory must be at least 1");
    this.#order = new Float64Array(capacity);
    this.#onForget = onForget;
  }

  /** The records of one incoming message, by reply index (holes for indexes not seen). */
  of(incomingId: number): readonly (ReplyRecord | undefined)[] {
    return this.#entries.get(incomingId) ?? [];
  }

  get(incomingId: number, index: number): ReplyRecord | undefined {
    return this.#entries.get(incomingId)?.[index];
  }

  intend(intent: ReplyIntent): void {
    this.#slot(intent.incomingId)[intent.index] = {
      incomingId: intent.incomingId,
      index: intent.index,
      intent,
    };
  }

  /**
   * Records the outcome, which settles the reply: its intent (the message's params, kept only to
   * recognise it on read-back after a crash) is dropped once a message is known to be posted. A record lives for `capacity` incoming
   * messages, long enough for V8 to move it to the old generation, so under a burst every byte
   * kept here per reply (times the two or three books that hold one) is old-space garbage later.
   */
  sent(incomingId: number, index: number, ids: number[]): void {
    const replies = this.#slot(incomingId);
    const record = replies[index];
    // With no message posted the outcome settles nothing: the reply guard reads back by the intent.
    if (record && ids.length === 0) record.ids = ids;
    else replies[index] = { incomingId, index, ids };
  }

  /** Takes in a record as loaded (replaying a journal, or a snapshot). */
  put(record: ReplyRecord): void {
    this.#slot(record.incomingId)[record.index] = record;
  }

  /** Every record, oldest incoming message first. */
  records(): ReplyRecord[] {
    const out: ReplyRecord[] = [];
    for (const replies of this.#entries.values())
      for (const record of replies) if (record) out.push(record);
    return out;
  }

  /** Incoming messages remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** The replies of `incomingId`, made the newest; the oldest message is forgotten past capacity. */
  #slot(incomingId: number): ReplyRecord[] {
    let replies = this.#entries.get(incomingId);
    if (replies) return replies;
    replies = [];
    const order = this.#order;
    const at = this.#next;
    // Full: the slot about to be written holds the oldest incoming message, which is forgotten.
    if (this.#entries.size === order.length) {
      const oldest = order[at]!;
      this.#entries.delete(oldest);
      this.#onForget?.(oldest);
    }
    this.#entries.set(incomingId, replies);
    order[at] = incomingId;
    this.#next = at + 1 === order.length ? 0 : at + 1;
    return replies;
  }
}

/** Persisted delivery state that is not what the runtime wrote: named, with what to do. */
export class DamagedDeliveryState extends Error {
  /** An unknown format: not recoverable by skipping records. */
  unknownFormat = false;

  constructor(where: string, problem: string) {
    super(
      `${where}: ${problem}. The delivery state says which messages were handled and answered; ` +
        "restore it from a backup or correct the entry. Deleting it starts afresh: messages sent " +
        "while the bot was down are then not handled, and replies in flight may be sent twice. " +
        "`bot start --recover` (storage.onDamage: recover) instead skips what cannot be read and " +
        "starts from the safest point left, with a warning.",
    );
    this.name = "DamagedDeliveryState";
  }
}

/**
 * Delivery state written by a newer topicbot: not damaged, only unreadable by this version, so
 * nothing is skipped or rebuilt (not even with `--recover`) and no backup is called for.
 */
export class NewerDeliveryFormat extends Error {
  constructor(where: string, problem: string) {
    super(
      `${where}: ${problem}. The file is not damaged: keep it, and run that topicbot version (or a newer one) again.`,
    );
    this.name = "NewerDeliveryFormat";
  }
}

const isId = (v: unknown): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const describe = (v: unknown): string => (v === undefined ? "missing" : JSON.stringify(v));

/** Checks a persisted watermark; `where` names the file and key. */
export function checkWatermark(value: unknown, where: string): DeliveryState {
  const v = value as Partial<DeliveryState> | null;
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new DamagedDeliveryState(where, `expected an object, found ${describe(value)}`);
  if (!isId(v.lastHandledId))
    throw new DamagedDeliveryState(
      where,
      `"lastHandledId" is ${describe(v.lastHandledId)}, expected a message ID (a whole number)`,
    );
  const above = v.handledAbove ?? [];
  if (!Array.isArray(above) || !above.every(isId))
    throw new DamagedDeliveryState(
      where,
      `"handledAbove" is ${describe(v.handledAbove)}, expected a list of message IDs`,
    );
  return { lastHandledId: v.lastHandledId, handledAbove: above };
}

/** Checks a list of posted message IDs. */
export function checkIds(value: unknown, where: string, key: string): number[] {
  if (!Array.isArray(value) || !value.every(isId))
    throw new DamagedDeliveryState(
      where,
      `"${key}" is ${describe(value)}, expected a list of message IDs`,
    );
  return value;
}

/** Checks a persisted reply intent. */
export function checkIntent(value: unknown, where: string): ReplyIntent {
  const v = value as Partial<ReplyIntent> | null;
  if (v === null || typeof v !== "object")
    throw new DamagedDeliveryState(where, `expected a reply intent, found ${describe(value)}`);
  for (const key of ["incomingId", "index", "floor", "at"] as const)
    if (!isId(v[key]))
      throw new DamagedDeliveryState(where, `"${key}" is ${describe(v[key])}, expected a number`);
  const p = v.params as Partial<SendParams> | undefined;
  if (!p || typeof p !== "object" || typeof p.type !== "string" || typeof p.content !== "string")
    throw new DamagedDeliveryState(
      where,
      `"params" is ${describe(v.params)}, expected the message's type, to and content`,
    );
  return v as ReplyIntent;
}

/**
 * Checks the reply ledger as versions before the journal kept it (`[[incomingId, [[ids], ...]], ...]`)
 * and turns it into records.
 */
export function checkLegacyReplies(value: unknown, where: string): ReplyRecord[] {
  if (!Array.isArray(value))
    throw new DamagedDeliveryState(
      where,
      `expected a list of [incoming message ID, replies] pairs, found ${describe(value)}`,
    );
  const records: ReplyRecord[] = [];
  for (const entry of value as unknown[]) {
    if (!Array.isArray(entry) || !isId(entry[0]) || !Array.isArray(entry[1]))
      throw new DamagedDeliveryState(
        where,
        `entry ${describe(entry)} is not an [incoming message ID, replies] pair`,
      );
    const [incomingId, replies] = entry as [number, unknown[]];
    replies.forEach((ids, index) => {
      if (ids === null || (Array.isArray(ids) && ids.length === 0)) return;
      records.push({ incomingId, index, ids: checkIds(ids, where, `${incomingId}[${index}]`) });
    });
  }
  return records;
}
