// Chat SDK thread IDs for Zulip conversations: `zulip:<channel>:<topic>` or `zulip:dm:<user IDs>`, each segment base64url.
import type { Conversation } from "../model/conversation.js";

/** A Zulip conversation as the adapter names it: a channel's topic, or a direct-message group. */
export type ZulipThread =
  { type: "channel"; streamId: number; topic: string } | { type: "direct"; userIds: number[] };

const PREFIX = "zulip";
const DM = "dm";

const encode = (s: string): string => Buffer.from(s, "utf8").toString("base64url");

function decode(segment: string | undefined, threadId: string): string {
  if (segment === undefined || !/^[A-Za-z0-9_-]*$/.test(segment))
    throw new TypeError(
      `chat-sdk: "${threadId}" is not a Zulip thread ID (zulip:<channel>:<topic>)`,
    );
  return Buffer.from(segment, "base64url").toString("utf8");
}

/** The thread ID of `thread`; direct-message user IDs are sorted, so a group has one ID. */
export function encodeThreadId(thread: ZulipThread): string {
  if (thread.type === "channel")
    return `${PREFIX}:${encode(String(thread.streamId))}:${encode(thread.topic)}`;
  const ids = [...new Set(thread.userIds)].sort((a, b) => a - b);
  return `${PREFIX}:${DM}:${encode(ids.join(","))}`;
}

/** The conversation a thread ID names; throws a TypeError naming the ID when it is not one. */
export function decodeThreadId(threadId: string): ZulipThread {
  const parts = threadId.split(":");
  if (parts.length !== 3 || parts[0] !== PREFIX)
    throw new TypeError(
      `chat-sdk: "${threadId}" is not a Zulip thread ID (zulip:<channel>:<topic>)`,
    );
  if (parts[1] === DM) {
    const userIds = decode(parts[2], threadId)
      .split(",")
      .map((s) => Number(s));
    if (userIds.length === 0 || userIds.some((id) => !Number.isSafeInteger(id) || id <= 0))
      throw new TypeError(`chat-sdk: "${threadId}" names no direct-message users`);
    return { type: "direct", userIds };
  }
  const streamId = Number(decode(parts[1], threadId));
  if (!Number.isSafeInteger(streamId) || streamId <= 0)
    throw new TypeError(`chat-sdk: "${threadId}" names no channel ID`);
  return { type: "channel", streamId, topic: decode(parts[2], threadId) };
}

/** The channel ID of a thread: `zulip:<channel>` (a direct-message thread is its own channel). */
export function channelIdFromThreadId(threadId: string): string {
  const thread = decodeThreadId(threadId);
  return thread.type === "channel" ? `${PREFIX}:${encode(String(thread.streamId))}` : threadId;
}

/** The thread of a topicbot conversation. */
export function threadOf(conversation: Conversation): ZulipThread {
  return conversation.type === "channel"
    ? { type: "channel", streamId: conversation.streamId, topic: conversation.topic }
    : { type: "direct", userIds: [...conversation.userIds] };
}

/** The narrow of a thread's messages: its channel and topic, or its direct-message group. */
export function narrowOf(thread: ZulipThread) {
  return thread.type === "channel"
    ? [
        { operator: "stream", operand: thread.streamId },
        { operator: "topic", operand: thread.topic },
      ]
    : [{ operator: "dm", operand: thread.userIds }];
}
