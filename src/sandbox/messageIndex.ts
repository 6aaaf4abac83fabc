// Stored messages indexed by channel, topic, direct-message conversation and receiving user, so sends and narrowed reads cost the same at any history size.
import type { StoredMessage } from "./model.js";

const NONE: readonly StoredMessage[] = [];

/** The key of a channel's topic; topics compare case-insensitively, as on the server. */
const topicKey = (streamId: number, topic: string): string =>
  `${streamId}\u0000${topic.toLowerCase()}`;

/** Index of the first message in `list` (ascending IDs) whose ID is at least `id`. */
export function lowerBound(list: readonly StoredMessage[], id: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function append(
  map: Map<string | number, StoredMessage[]>,
  key: string | number,
  m: StoredMessage,
) {
  const list = map.get(key);
  if (list) list.push(m);
  else map.set(key, [m]);
}

/** Puts an older message into its place in an ascending list, unless it is there already. */
function insertSorted(
  map: Map<string | number, StoredMessage[]>,
  key: string | number,
  m: StoredMessage,
) {
  const list = map.get(key);
  if (!list) return void map.set(key, [m]);
  const at = lowerBound(list, m.id);
  if (list[at] !== m) list.splice(at, 0, m);
}

/**
 * Lists of messages in ascending ID order, one per channel, topic, DM conversation (recipient ID)
 * and user who received the message. A message moved to another topic or channel joins its new
 * lists and stays in its old ones: every list is a superset of what it names, so readers check
 * each message against the narrow as before; the index only spares them the rest of history.
 */
export class MessageIndex {
  readonly #byChannel = new Map<number, StoredMessage[]>();
  readonly #byTopic = new Map<string, StoredMessage[]>();
  readonly #byConversation = new Map<number, StoredMessage[]>();
  readonly #byUser = new Map<number, StoredMessage[]>();
  /** Distinct senders per topic; dropped when a move changes a topic, rebuilt on demand. */
  readonly #participants = new Map<string, Set<number>>();

  /** Indexes a newly stored message (the highest ID so far). */
  add(m: StoredMessage): void {
    if (m.kind === "stream") {
      const key = topicKey(m.streamId!, m.topic);
      append(this.#byChannel, m.streamId!, m);
      append(this.#byTopic, key, m);
      this.#participants.get(key)?.add(m.senderId);
    } else {
      append(this.#byConversation, m.recipientId, m);
    }
    for (const userId of m.flags.keys()) append(this.#byUser, userId, m);
  }

  /** Re-indexes a message after a move from `from` (its channel and topic before). */
  moved(m: StoredMessage, from: { streamId?: number; topic: string }): void {
    if (m.kind !== "stream") return;
    const key = topicKey(m.streamId!, m.topic);
    insertSorted(this.#byChannel, m.streamId!, m);
    insertSorted(this.#byTopic, key, m);
    this.#participants.delete(key);
    if (from.streamId !== undefined) this.#participants.delete(topicKey(from.streamId, from.topic));
  }

  /** Drops a deleted message from every list (a moved one is in its old lists too). */
  remove(m: StoredMessage): void {
    const drop = (list: StoredMessage[] | undefined) => {
      const at = list ? lowerBound(list, m.id) : -1;
      if (list && list[at] === m) list.splice(at, 1);
    };
    if (m.kind === "stream") {
      for (const list of this.#byChannel.values()) drop(list);
      for (const list of this.#byTopic.values()) drop(list);
      for (const key of this.#participants.keys())
        if (key.startsWith(`${m.streamId!}\u0000`)) this.#participants.delete(key);
    } else drop(this.#byConversation.get(m.recipientId));
    for (const userId of m.flags.keys()) drop(this.#byUser.get(userId));
  }

  /** Messages that were ever in the channel. */
  channel(streamId: number): readonly StoredMessage[] {
    return this.#byChannel.get(streamId) ?? NONE;
  }

  /** Messages that were ever in the channel's topic (any case). */
  topic(streamId: number, topic: string): readonly StoredMessage[] {
    return this.#byTopic.get(topicKey(streamId, topic)) ?? NONE;
  }

  /** Direct messages of one conversation, by its recipient ID. */
  conversation(recipientId: number): readonly StoredMessage[] {
    return this.#byConversation.get(recipientId) ?? NONE;
  }

  /** Messages the user received when they were sent (the user's UserMessage rows, and possibly more). */
  user(userId: number): readonly StoredMessage[] {
    return this.#byUser.get(userId) ?? NONE;
  }

  /** Distinct senders of the topic so far. */
  participants(streamId: number, topic: string): ReadonlySet<number> {
    const key = topicKey(streamId, topic);
    let senders = this.#participants.get(key);
    if (!senders) {
      const lower = topic.toLowerCase();
      senders = new Set(
        this.topic(streamId, topic)
          .filter((m) => m.streamId === streamId && m.topic.toLowerCase() === lower)
          .map((m) => m.senderId),
      );
      this.#participants.set(key, senders);
    }
    return senders;
  }
}
