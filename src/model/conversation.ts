// Conversations: a channel topic or a direct-message group, the unit of ordering and of replies.
import type { Message } from "../api/messages.js";

export type Conversation =
  | { type: "channel"; streamId: number; channel: string; topic: string }
  | { type: "direct"; userIds: number[] };

/** The conversation a message belongs to. */
export function conversationOf(message: Message): Conversation {
  if (message.type === "stream") {
    return {
      type: "channel",
      streamId: message.stream_id!,
      channel: typeof message.display_recipient === "string" ? message.display_recipient : "",
      topic: message.subject,
    };
  }
  const ids = Array.isArray(message.display_recipient)
    ? message.display_recipient.map((r) => r.id)
    : [];
  return {
    type: "direct",
    userIds: [...new Set([...ids, message.sender_id])].sort((a, b) => a - b),
  };
}

/** A stable key: messages with the same key are one conversation (topics compare case-insensitively). */
export function conversationKey(conversation: Conversation): string {
  return conversation.type === "channel"
    ? `channel:${conversation.streamId}:${conversation.topic.toLowerCase()}`
    : `direct:${conversation.userIds.join(",")}`;
}

/**
 * `conversationKey(conversationOf(message))` without the conversation object in between for a
 * channel message: the intake keys every message's lane with it. A fast path for the common
 * case; direct messages take the general one (`conversation.test.ts` pins the two together).
 */
export function laneKey(message: Message): string {
  if (message.type === "stream")
    return `channel:${message.stream_id!}:${message.subject.toLowerCase()}`;
  return conversationKey(conversationOf(message));
}

/** Channel topics whose lane keys `LaneKeys` keeps at most; past it, it starts afresh. */
const LANE_KEYS_KEPT = 1_024;

/**
 * `laneKey` that hands out the same string object for a topic every time. A fast path for the
 * intake, which keys a lane for every message: a fresh key (longer than 12 characters, so V8
 * builds it as a rope) was flattened, hashed and compared character by character against the
 * lane's key in the dispatcher's map, about 1,800 instructions per message (callgrind, issue 17);
 * the same object hashes once and compares by identity. Looked up by stream ID, then by the raw
 * topic (a short flat string). Bounded: past `LANE_KEYS_KEPT` topics the cache is emptied.
 */
export class LaneKeys {
  readonly #byStream = new Map<number, Map<string, string>>();
  #size = 0;

  /** Topics whose keys are kept now. */
  get size(): number {
    return this.#size;
  }

  /** The lane key of `message` (as `laneKey` gives it). */
  of(message: Message): string {
    if (message.type !== "stream") return laneKey(message);
    const streamId = message.stream_id!;
    let topics = this.#byStream.get(streamId);
    const known = topics?.get(message.subject);
    if (known !== undefined) return known;
    if (this.#size >= LANE_KEYS_KEPT) {
      this.#byStream.clear();
      this.#size = 0;
      topics = undefined;
    }
    if (topics === undefined) {
      topics = new Map();
      this.#byStream.set(streamId, topics);
    }
    const key = laneKey(message);
    topics.set(message.subject, key);
    this.#size++;
    return key;
  }
}
