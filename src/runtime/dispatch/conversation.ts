// Conversations: a channel topic or a direct-message group, the unit of ordering and of replies.
import type { Message } from "../../api/messages.js";

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
