// A Chat SDK bot written as Chat SDK's docs write one, run by topicbot through the Zulip adapter against the sandbox.
import { afterEach, describe, expect, it } from "vitest";
import { Chat } from "chat";
import { createTestBot, type TestBot } from "topicbot/testing";
import {
  chatSdkPlugin,
  decodeThreadId,
  encodeThreadId,
  MemoryChatState,
  ZulipAdapter,
} from "topicbot/chat-sdk";

/** The bot of Chat SDK's getting-started guide: subscribe on mention, answer in the thread, react. */
function chatSdkBot(): { chat: Chat; adapter: ZulipAdapter; seen: string[] } {
  const adapter = new ZulipAdapter();
  const chat = new Chat({
    adapters: { zulip: adapter },
    state: new MemoryChatState(),
    userName: "Topic Bot",
    logger: "silent",
  });
  const seen: string[] = [];
  chat.onNewMention(async (thread, message) => {
    seen.push(`mention:${message.text}`);
    await thread.subscribe();
    const sent = await thread.post("Hello! I'm listening to this thread now.");
    await sent.addReaction("thumbs_up");
  });
  chat.onSubscribedMessage(async (thread, message) => {
    seen.push(`subscribed:${message.text}`);
    if (message.text.includes("stream")) {
      await thread.post(
        (async function* () {
          yield "one ";
          yield "two ";
          yield "three";
        })(),
      );
      return;
    }
    await thread.post(`You said: ${message.text}`);
  });
  return { chat, adapter, seen };
}

describe("a Chat SDK bot on topicbot", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("subscribes on a mention, answers the thread's later messages once each, and reacts", async () => {
    const { chat, adapter, seen } = chatSdkBot();
    t = await createTestBot({ plugins: [chatSdkPlugin({ chat, adapter })] });

    await t.send("@**Topic Bot** hi there", { topic: "lunch" });
    const hello = await t.expectReply("Hello! I'm listening to this thread now.");
    await t.settle();
    expect(t.reactions(hello.id).map((r) => r.emoji)).toEqual(["thumbs_up"]);
    expect(hello.topic).toBe("lunch");

    // Not addressed to the bot: it arrives because the thread is subscribed (the plugin follows it).
    await t.send("pizza or sushi?", { topic: "lunch" });
    expect((await t.reply()).content).toBe("You said: pizza or sushi?");

    // Another topic is another thread: not subscribed, not answered.
    await t.send("unrelated chatter", { topic: "elsewhere" });
    await t.expectNoReply();

    await t.send("please stream", { topic: "lunch" });
    await t.settle();
    const streamed = t.drain().at(-1)!;
    expect(t.realm.message(streamed.id)!.content).toBe("one two three");

    expect(seen).toEqual([
      "mention:@**Topic Bot** hi there",
      "subscribed:pizza or sushi?",
      "subscribed:please stream",
    ]);
    // Each message answered once: one hello, one echo, one streamed answer (posted, then edited).
    expect(t.botMessages().map((m) => t!.realm.message(m.id)!.content)).toEqual([
      "Hello! I'm listening to this thread now.",
      "You said: pizza or sushi?",
      "one two three",
    ]);
  });

  it("answers a direct message in the direct conversation", async () => {
    const { chat, adapter } = chatSdkBot();
    t = await createTestBot({ plugins: [chatSdkPlugin({ chat, adapter })] });
    await t.dm("hello bot");
    const reply = await t.expectReply("Hello! I'm listening to this thread now.");
    expect(reply.type).toBe("direct");
    // Mia and the bot: the direct conversation the message came from, not a channel.
    expect(reply.userIds).toHaveLength(2);
  });

  it("round-trips thread IDs, topics with colons and non-ASCII included", () => {
    for (const thread of [
      { type: "channel" as const, streamId: 7, topic: "a:b / c ✓" },
      { type: "channel" as const, streamId: 12, topic: "" },
      { type: "direct" as const, userIds: [3, 9, 11] },
    ]) {
      const id = encodeThreadId(thread);
      expect(id).toMatch(/^zulip:[A-Za-z0-9_-]+:[A-Za-z0-9_-]*$/);
      expect(decodeThreadId(id)).toEqual(thread);
    }
    expect(() => decodeThreadId("slack:C1:T2")).toThrow(/not a Zulip thread ID/);
    expect(() => decodeThreadId("zulip:***:x")).toThrow(/not a Zulip thread ID/);
  });
});

describe("people's reactions, edits and deletions", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("reach the bot's onReaction, onMessageUpdated and onMessageDeleted handlers, the bot's own not", async () => {
    const adapter = new ZulipAdapter();
    const chat = new Chat({
      adapters: { zulip: adapter },
      state: new MemoryChatState(),
      userName: "Topic Bot",
      logger: "silent",
    });
    const seen: string[] = [];
    chat.onNewMention(async (thread) => {
      const sent = await thread.post("noted");
      await sent.addReaction("eyes"); // the bot's own reaction: not handed back
    });
    chat.onReaction(async (event) => {
      seen.push(
        `reaction ${event.added ? "+" : "-"}${event.emoji.name} by ${event.user.fullName} on ${event.message?.text}`,
      );
      await event.thread.post(`thanks for the ${event.rawEmoji}`);
    });
    chat.onMessageUpdated(async (thread, message, previous) => {
      seen.push(`edited ${previous?.text} -> ${message.text} in ${decodeThreadId(thread.id).type}`);
    });
    chat.onMessageDeleted(async (event) => {
      seen.push(`deleted ${event.messageId} in ${JSON.stringify(decodeThreadId(event.threadId))}`);
    });
    t = await createTestBot({ plugins: [chatSdkPlugin({ chat, adapter })] });
    await t.send("@**Topic Bot** look", { topic: "events" });
    const noted = await t.expectReply("noted");
    await t.settle();
    await t.react(noted.id, "heart", { as: "mia" });
    await t.expectReply("thanks for the heart");
    await t.clientFor("mia").messages.removeReaction({ message_id: noted.id, emoji_name: "heart" });
    await t.expectReply("thanks for the heart");
    const own = await t.send("a typo", { topic: "events", as: "mia" });
    await t.edit(own, "no typo", { as: "mia" });
    // The edit is handed over with the message as the server has it then: wait before deleting it.
    for (let i = 0; i < 100 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
    await t.clientFor("mia").messages.remove({ message_id: own });
    const general = t.sandbox.realm.channelByName("general")!.streamId;
    for (let i = 0; i < 100 && seen.length < 4; i++) await new Promise((r) => setTimeout(r, 50));
    await t.settle();
    expect(seen).toEqual([
      `reaction +heart by Mia Member on noted`,
      `reaction -heart by Mia Member on noted`,
      "edited a typo -> no typo in channel",
      `deleted ${own} in ${JSON.stringify({ type: "channel", streamId: general, topic: "events" })}`,
    ]);
  });
});

describe("the adapter's other calls", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it("fetches the thread's messages, edits, types, deletes, and opens a direct message", async () => {
    const adapter = new ZulipAdapter();
    const chat = new Chat({
      adapters: { zulip: adapter },
      state: new MemoryChatState(),
      userName: "Topic Bot",
      logger: "silent",
    });
    const facts: Record<string, unknown> = {};
    chat.onNewMention(async (thread, message) => {
      const recent = await adapter.fetchMessages(thread.id, { limit: 10 });
      facts.fetched = recent.messages.map((m) => m.text);
      facts.info = await adapter.fetchThread(thread.id);
      await adapter.startTyping(thread.id);
      const draft = await thread.post("draft");
      await draft.edit("final");
      const temp = await thread.post("temporary");
      await temp.delete();
      const dm = await adapter.openDM(message.author.userId);
      await adapter.postMessage(dm, "a word in private");
    });
    t = await createTestBot({ plugins: [chatSdkPlugin({ chat, adapter })] });
    await t.send("earlier words", { topic: "misc" });
    await t.send("@**Topic Bot** do things", { topic: "misc" });
    await t.settle();
    expect(facts.fetched).toEqual(["earlier words", "@**Topic Bot** do things"]);
    expect(facts.info).toMatchObject({ isDM: false, metadata: { topic: "misc" } });
    const mine = t.botMessages().map((m) => ({ m, now: t!.realm.message(m.id) }));
    expect(mine.filter((x) => x.now).map((x) => [x.m.type, x.now!.content])).toEqual([
      ["channel", "final"],
      ["direct", "a word in private"],
    ]);
  });
});
