// A Chat SDK bot's answer survives a crash between posting it and recording it: the rerun after restart answers nothing twice.
import { afterEach, describe, expect, it } from "vitest";
import { Chat } from "chat";
import { createBot, createMemoryStore, type Bot } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { chatSdkPlugin, encodeThreadId, MemoryChatState, ZulipAdapter } from "topicbot/chat-sdk";
import { KeyValueDeliveryStore } from "../../src/state/delivery/key-value.js";
import type { DeliveryState, DeliveryStore, ReplyIntent } from "../../src/state/delivery/store.js";
import type { KeyValueStore } from "../../src/state/key-value/store.js";
import { post, until } from "../helpers/reliability.js";

/** A delivery store whose writes after the intent fail while `failing` is set: as a crash right after the send. */
class FailingAfterIntent implements DeliveryStore {
  failing = false;
  readonly #inner: KeyValueDeliveryStore;
  constructor(kv: KeyValueStore) {
    this.#inner = new KeyValueDeliveryStore(kv);
  }
  load = () => this.#inner.load();
  intend = (intent: ReplyIntent) => this.#inner.intend(intent);
  saveWatermark = (state: DeliveryState) =>
    this.failing ? Promise.reject(new Error("ENOSPC")) : this.#inner.saveWatermark(state);
  sent = (incomingId: number, index: number, ids: number[]) =>
    this.failing ? Promise.reject(new Error("ENOSPC")) : this.#inner.sent(incomingId, index, ids);
  flush = () => (this.failing ? Promise.resolve() : this.#inner.flush());
  close = () => this.#inner.close();
}

describe("a Chat SDK bot restarted after a crash", () => {
  let sandbox: Sandbox | undefined;
  const bots: Bot[] = [];
  afterEach(async () => {
    for (const bot of bots.splice(0)) await bot.stop().catch(() => undefined);
    await sandbox?.close();
  });

  it.each([
    ["a posted answer and its reaction", false],
    ["a streamed answer (posted, then edited)", true],
  ])(
    "handles the unrecorded message again, and %s is not posted twice",
    async (_what, streamed) => {
      sandbox = await startSandbox({ heartbeatSeconds: 0.2 });
      const kv = createMemoryStore();
      const runtime = kv.namespace("topicbot:runtime");
      let runs = 0;
      /** A fresh process: a new Chat SDK bot (its memory state lost) on the same delivery journal. */
      const start = (delivery: FailingAfterIntent, streamed = false) => {
        const adapter = new ZulipAdapter();
        const chat = new Chat({
          adapters: { zulip: adapter },
          state: new MemoryChatState(),
          userName: sandbox!.bot.fullName,
          logger: "silent",
        });
        chat.onNewMention(async (thread) => {
          runs++;
          delivery.failing = true; // the journal records nothing more: the process "dies" after this
          await thread.subscribe();
          if (streamed) {
            await thread.post(
              (async function* () {
                yield "Hello ";
                yield "from ";
                yield "Chat SDK";
              })(),
            );
            return;
          }
          const sent = await thread.post("Hello from Chat SDK");
          await sent.addReaction("thumbs_up");
        });
        const bot = createBot({
          server: { site: sandbox!.url, email: sandbox!.bot.email, apiKey: sandbox!.bot.apiKey },
          plugins: [chatSdkPlugin({ chat, adapter })],
          handleSignals: false,
          rateLimit: false,
          storage: kv,
          delivery,
          eventLoop: { backoff: { baseMs: 5, capMs: 20 } },
          sendRetry: { baseMs: 5, capMs: 20 },
        });
        bots.push(bot);
        return bot;
      };
      const botMessages = () =>
        sandbox!.realm.messages.filter((m) => m.senderId === sandbox!.bot.userId);

      await start(new FailingAfterIntent(runtime), streamed).start();
      post(sandbox, `@**${sandbox.bot.fullName}** hi`);
      await until(() => botMessages().length === 1, "the first run's answer");
      if (streamed)
        await until(() => botMessages()[0]?.content === "Hello from Chat SDK", "the edited stream");
      else await until(() => botMessages()[0]!.reactions.length === 1, "its reaction");
      await bots[0]!.stop().catch(() => undefined);

      await start(new FailingAfterIntent(runtime), streamed).start();
      await until(() => runs === 2, "the second run handling the message again", 10_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(botMessages().map((m) => m.content)).toEqual(["Hello from Chat SDK"]);
      if (!streamed)
        expect(botMessages()[0]!.reactions.map((r) => r.emojiName)).toEqual(["thumbs_up"]);
    },
  );
});

describe("a Chat SDK bot's subscriptions across a restart", () => {
  let sandbox: Sandbox | undefined;
  const bots: Bot[] = [];
  afterEach(async () => {
    for (const bot of bots.splice(0)) await bot.stop().catch(() => undefined);
    await sandbox?.close();
  });

  it("are kept in the bot's store: the restarted bot still answers the subscribed topic unaddressed", async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 0.2 });
    const kv = createMemoryStore(); // the bot's storage, as a file or Redis keeps it across processes
    const seen: string[] = [];
    /** A fresh process: a new Chat SDK bot and a new MemoryChatState, on the same store. */
    const start = () => {
      const adapter = new ZulipAdapter();
      const chat = new Chat({
        adapters: { zulip: adapter },
        state: new MemoryChatState(),
        userName: sandbox!.bot.fullName,
        logger: "silent",
      });
      chat.onNewMention(async (thread) => {
        await thread.subscribe();
        await thread.setState({ turns: 1 });
        await thread.post("subscribed");
      });
      chat.onSubscribedMessage(async (thread, message) => {
        const turns = ((await thread.state)?.turns as number | undefined) ?? 0;
        await thread.setState({ turns: turns + 1 });
        seen.push(`${message.text} (turn ${turns + 1})`);
        await thread.post(`heard: ${message.text}`);
      });
      const bot = createBot({
        server: { site: sandbox!.url, email: sandbox!.bot.email, apiKey: sandbox!.bot.apiKey },
        plugins: [chatSdkPlugin({ chat, adapter })],
        handleSignals: false,
        rateLimit: false,
        storage: kv,
        eventLoop: { backoff: { baseMs: 5, capMs: 20 } },
      });
      bots.push(bot);
      return bot;
    };
    const botMessages = () =>
      sandbox!.realm.messages
        .filter((m) => m.senderId === sandbox!.bot.userId)
        .map((m) => m.content);

    await start().start();
    post(sandbox, `@**${sandbox.bot.fullName}** follow this`, { topic: "kept" });
    await until(() => botMessages().length === 1, "the subscription's answer");
    await bots[0]!.stop();

    await start().start();
    post(sandbox, "still there?", { topic: "kept" });
    await until(() => botMessages().length === 2, "the restarted bot's answer", 10_000);
    expect(botMessages()).toEqual(["subscribed", "heard: still there?"]);
    // The thread's state came through the restart too.
    expect(seen).toEqual(["still there? (turn 2)"]);
  });
});

describe("a post outside a handled message, keyed with adapter.once", () => {
  let sandbox: Sandbox | undefined;
  const bots: Bot[] = [];
  afterEach(async () => {
    for (const bot of bots.splice(0)) await bot.stop().catch(() => undefined);
    await sandbox?.close();
  });

  it("is made once per key, across a rerun and a crash between the send and its record", async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 0.2 });
    const kv = createMemoryStore();
    const start = async () => {
      const adapter = new ZulipAdapter();
      const chat = new Chat({
        adapters: { zulip: adapter },
        state: new MemoryChatState(),
        userName: sandbox!.bot.fullName,
        logger: "silent",
      });
      const bot = createBot({
        server: { site: sandbox!.url, email: sandbox!.bot.email, apiKey: sandbox!.bot.apiKey },
        plugins: [chatSdkPlugin({ chat, adapter })],
        handleSignals: false,
        rateLimit: false,
        storage: kv,
      });
      bots.push(bot);
      await bot.start();
      return { adapter, chat, bot };
    };
    const general = sandbox.realm.channelByName("general")!.streamId;
    const threadId = encodeThreadId({ type: "channel", streamId: general, topic: "digests" });
    const posted = () =>
      sandbox!.realm.messages
        .filter((m) => m.senderId === sandbox!.bot.userId)
        .map((m) => m.content);
    /** A job posting the day's digest, keyed by its day, as a cron job would. */
    const digest = (p: { adapter: ZulipAdapter; chat: Chat }, day: string) =>
      p.adapter.once(`digest:${day}`, () => p.chat.thread(threadId).post(`digest of ${day}`));

    const first = await start();
    const sent = await digest(first, "12-01");
    const again = await digest(first, "12-01"); // the job retried: no second post
    expect(again.id).toBe(sent.id);
    await first.bot.stop();

    // A crash right after the send: the journal holds the intent, not the posted ID.
    const journal = kv.namespace("chat-sdk").namespace("keyed-posts"); // the plugin's storage
    const record = await journal.get<{ at: number; id?: number }>("digest:12-01#0");
    expect(record?.id).toBe(Number(sent.id));
    await journal.set("digest:12-01#0", { at: record!.at });

    const second = await start();
    const rerun = await digest(second, "12-01"); // found by reading back: not posted again
    expect(rerun.id).toBe(sent.id);
    await digest(second, "12-02"); // another key posts
    expect(posted()).toEqual(["digest of 12-01", "digest of 12-02"]);
  });
});
