// topicbot/chat-sdk: a Chat SDK bot run by topicbot: the Zulip adapter, and the plugin that hands it each message once.
import type { Chat } from "chat";
import { definePlugin } from "../bot/plugin.js";
import type { Plugin } from "../bot/plugin.js";
import type { MessageContext } from "../context/context.js";
import type { ZulipAdapter } from "./adapter.js";
import { encodeThreadId, threadOf } from "./thread-id.js";
import { forwardEvents } from "./events.js";
import { MemoryChatState } from "./memory-state.js";

export { ZulipAdapter, type ZulipAdapterOptions } from "./adapter.js";
export { MemoryChatState } from "./memory-state.js";
export {
  channelIdFromThreadId,
  decodeThreadId,
  encodeThreadId,
  type ZulipThread,
} from "./thread-id.js";

export interface ChatSdkPluginOptions {
  /** The Chat SDK bot (`new Chat({ adapters: { zulip: adapter }, ... })`). */
  chat: Chat;
  /** The Zulip adapter given to `chat`. */
  adapter: ZulipAdapter;
  /** The plugin's name (default `chat-sdk`). */
  name?: string;
}

/**
 * The plugin that runs a Chat SDK bot: each message topicbot delivers to it (mentions and direct
 * messages, and every message of a thread the bot subscribed to) goes to
 * `chat.processMessage(adapter, threadId, message, { deduplicate: false })`, awaited in the
 * message's turn: per-topic order, once (topicbot's journal de-duplicates, not Chat SDK's cache),
 * and a handler's failure is the message's failure (retried, reported) as for any handler.
 */
export function chatSdkPlugin(options: ChatSdkPluginOptions): Plugin {
  const { chat, adapter } = options;
  const handle = async (ctx: MessageContext): Promise<void> => {
    const threadId = encodeThreadId(threadOf(ctx.conversation));
    await adapter.handling(ctx, () =>
      chat.processMessage(adapter, threadId, adapter.parseMessage(ctx.message), {
        deduplicate: false,
      }),
    );
  };
  return definePlugin({
    name: options.name ?? "chat-sdk",
    description: "Runs a Chat SDK bot through the Zulip adapter.",
    setup(bot) {
      adapter.attach(bot.api, () => bot.me, bot.storage.namespace("keyed-posts"));
      // Subscriptions and thread state outlive a restart in the plugin's storage (the bot's store).
      const state = chat.getState();
      if (state instanceof MemoryChatState) state.keepIn(bot.storage, () => adapter.handledId);
      // Followed threads (subscribed ones) first, then every message addressed to the bot.
      bot.followed(handle);
      bot.filter(() => true, handle);
      forwardEvents(bot, chat, adapter); // people's reactions, edits and deletions
    },
  });
}
