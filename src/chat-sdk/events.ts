// People's reactions, edits and deletions, from the server's events to the Chat SDK bot (processReaction, processMessageUpdated, processMessageDeleted).
import { defaultEmojiResolver, type Author, type Chat } from "chat";
import type { DeleteMessageEvent, ReactionEvent, UpdateMessageEvent } from "../api/events.js";
import type { PluginApi } from "../bot/plugin-api.js";
import { conversationOf } from "../model/conversation.js";
import type { ZulipAdapter } from "./adapter.js";
import { channelIdFromThreadId, encodeThreadId, threadOf } from "./thread-id.js";

/** A person as Chat SDK's `Author`, from GET /users/{id} (their ID alone when that fails). */
async function authorOf(bot: PluginApi, userId: number): Promise<Author> {
  const me = bot.me.userId === userId;
  try {
    const { user } = await bot.api.users.get({ user_id: userId });
    return {
      userId: String(userId),
      userName: user.email,
      fullName: user.full_name,
      email: user.email,
      isBot: user.is_bot,
      isMe: me,
    };
  } catch {
    return {
      userId: String(userId),
      userName: String(userId),
      fullName: "",
      isBot: "unknown",
      isMe: me,
    };
  }
}

/**
 * Hands the bot the events Chat SDK has handlers for: a reaction added or removed
 * (`onReaction`), a message's content edited (`onMessageUpdated`, with the text before as
 * `previousMessage`), a channel message deleted (`onMessageDeleted`). The bot's own doings are not
 * handed back. These are the server's events as they arrive, not messages: they are not in the
 * reply journal, so one that arrives while the bot is down is not handed over after a restart.
 */
export function forwardEvents(bot: PluginApi, chat: Chat, adapter: ZulipAdapter): void {
  /** The message as a raw Zulip message and its thread, or undefined when it cannot be read. */
  const fetch = async (id: number) => {
    const found = await bot.api.messages
      .get({ message_id: id, apply_markdown: false })
      .catch(() => undefined);
    if (!found) return undefined;
    return {
      raw: found.message,
      threadId: encodeThreadId(threadOf(conversationOf(found.message))),
    };
  };

  bot.on("reaction", async (event: ReactionEvent) => {
    if (event.user_id === bot.me.userId) return;
    const message = await fetch(event.message_id);
    if (!message) return;
    await chat.processReaction({
      adapter,
      added: event.op === "add",
      emoji: defaultEmojiResolver.fromSlack(event.emoji_name),
      rawEmoji: event.emoji_name,
      messageId: String(event.message_id),
      threadId: message.threadId,
      message: adapter.parseMessage(message.raw),
      user: await authorOf(bot, event.user_id),
      raw: event,
    });
  });

  bot.on("update_message", async (event: UpdateMessageEvent) => {
    // Content edits by people; moves and the server's re-renderings are not edits of the text.
    if (event.rendering_only || event.content === undefined) return;
    if (event.user_id === null || event.user_id === bot.me.userId) return;
    const message = await fetch(event.message_id);
    if (!message) return;
    const before = { ...message.raw, content: event.orig_content ?? "" };
    await chat.processMessageUpdated({
      adapter,
      threadId: message.threadId,
      message: adapter.parseMessage(message.raw),
      ...(event.orig_content !== undefined && { previousMessage: adapter.parseMessage(before) }),
    });
  });

  bot.on("delete_message", async (event: DeleteMessageEvent) => {
    // A direct message's event names no conversation: its thread is unknown, so it is not handed over.
    if (event.message_type !== "stream" || event.stream_id === undefined) return;
    const threadId = encodeThreadId({
      type: "channel",
      streamId: event.stream_id,
      topic: event.topic ?? "",
    });
    for (const id of event.message_ids ?? (event.message_id ? [event.message_id] : []))
      await chat.processMessageDeleted({
        adapter,
        channelId: channelIdFromThreadId(threadId),
        messageId: String(id),
        threadId,
        raw: event,
      });
  });
}
