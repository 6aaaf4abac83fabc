// A Chat SDK bot, written as Chat SDK's docs write one, run on a Zulip server by topicbot.
import { Chat } from "chat";
import { chatSdkPlugin, MemoryChatState, ZulipAdapter } from "topicbot/chat-sdk";

const adapter = new ZulipAdapter();

export const bot = new Chat({
  adapters: { zulip: adapter },
  // Subscriptions in memory are lost at a restart: use Chat SDK's Redis state in production.
  state: new MemoryChatState(),
  userName: "Topic Bot",
  logger: "silent",
});

// A mention: subscribe to the topic, answer, and mark the answer with a reaction.
bot.onNewMention(async (thread) => {
  await thread.subscribe();
  const sent = await thread.post("Hi! I'm following this topic now. Say `stop` to end it.");
  await sent.addReaction("wave");
});

// Every later message of a subscribed topic, mentioned or not.
bot.onSubscribedMessage(async (thread, message) => {
  if (message.text.trim() === "stop") {
    await thread.unsubscribe();
    await thread.post("Bye! Mention me to start again.");
    return;
  }
  await thread.post(`You said: ${message.text}`);
});

/** The topicbot plugin that hands each message to the Chat SDK bot (bot.config.yaml loads it). */
export default chatSdkPlugin({ chat: bot, adapter });
