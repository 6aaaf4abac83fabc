// Topics that move: a follow, a session, an open ctx.ask and an overlap lane go where the server moved the topic (harness, fake clock, loopback HTTP).
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin, type MessageContext } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";
import { until } from "../helpers/bot.js";

/** Follows a topic on `!watch`, counts in the topic's session what it hears there, asks on `!name`, waits on `!slow`. */
const keeper = definePlugin({
  name: "keeper",
  setup(bot) {
    const tally = bot.session<{ heard: number }>();
    // Plugins hear an event after the bot has applied it (its own listener comes first).
    bot.on("update_message", () => void movesSeen++);
    bot.command("watch", { description: "Follow this topic" }, async (ctx) => {
      await ctx.follow({ idleMinutes: 30 });
      await tally.of(ctx).set({ heard: 0 });
      await ctx.reply("watching");
    });
    bot.command("slow", { description: "Answer when let go" }, async (ctx) => {
      started();
      await letGo;
      await ctx.reply("done at last");
    });
    bot.command(
      "later",
      { description: "Answer after a quiet moment", overlap: { mode: "burst", quietMs: 1500 } },
      (ctx) => ctx.reply(`later: ${ctx.message.id}`),
    );
    bot.command("name", { description: "Ask a name" }, async (ctx) => {
      const answer = await ctx.ask("What's your name?", { timeoutMs: 600_000 });
      await ctx.reply(answer ? `Hello, ${answer.text}!` : "Never mind.");
    });
    bot.followed(async (ctx: MessageContext) => {
      if (ctx.message.sender_id !== ctx.me.userId && ctx.addressedVia === null) {
        const { heard } = await tally.of(ctx).update((s) => ({ heard: (s?.heard ?? 0) + 1 }));
        await ctx.reply(`heard ${heard}`);
      }
    });
  },
});

/** `!slow` says it started, then waits until the test lets it go. */
let started: () => void = () => undefined;
let movesSeen = 0;
let letGo: Promise<void> = Promise.resolve();

let t: TestBot | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("a topic that moves takes the bot's state with it", () => {
  it("a renamed topic keeps its follow and its session: the count goes on in the new name, the old name is not followed", async () => {
    t = await createTestBot({ plugins: [keeper], now: "2026-03-02T09:00:00Z" });
    await t.send("!watch", { topic: "draft" });
    await t.expectReply("watching");
    await t.send("first", { topic: "draft" });
    await t.expectReply("heard 1");
    await t.renameTopic("general", "draft", "final", { notifyNew: false });
    await t.send("second", { topic: "final" });
    const heard = await t.reply();
    expect([heard.content, heard.topic]).toEqual(["heard 2", "final"]);
    // Nothing of the topic stays under its old name: a new "draft" is a new conversation.
    await t.send("third", { topic: "draft" });
    await t.expectNoReply();
    expect((await t.bot.storage.namespace("topicbot:follows").list()).sort()).toEqual([
      `channel:${t.realm.channelByName("general")!.streamId}:final`,
    ]);
  });

  it("a topic moved to another channel takes its follow and session there", async () => {
    t = await createTestBot({ plugins: [keeper], now: "2026-03-02T09:00:00Z" });
    await t.channel("archive");
    await t.send("!watch", { topic: "plans" });
    await t.expectReply("watching");
    const last = await t.send("one", { topic: "plans" });
    await t.expectReply("heard 1");
    await t.move(last, { channel: "archive", topic: "old plans", notifyNew: false });
    await t.send("two", { channel: "archive", topic: "old plans" });
    const heard = await t.reply();
    expect([heard.content, heard.channel, heard.topic]).toEqual([
      "heard 2",
      "archive",
      "old plans",
    ]);
  });

  it("an open ctx.ask in a moved topic gets its answer from the new topic, and the asker replies there", async () => {
    t = await createTestBot({ plugins: [keeper], now: "2026-03-02T09:00:00Z" });
    await t.send("!name", { topic: "intro" });
    await t.expectReply("What's your name?");
    await t.renameTopic("general", "intro", "welcome", { notifyNew: false });
    await t.send("Mia", { topic: "welcome" });
    const hello = await t.reply();
    expect([hello.content, hello.topic]).toEqual(["Hello, Mia!", "welcome"]);
    expect(t.bot.pending).toBe(0);
  });

  it("a handler running while its topic is resolved (renamed) replies in the resolved topic, not in a new one of the old name", async () => {
    t = await createTestBot({ plugins: [keeper], now: "2026-03-02T09:00:00Z" });
    let release!: () => void;
    letGo = new Promise<void>((resolve) => (release = resolve));
    const running = new Promise<void>((resolve) => (started = resolve));
    movesSeen = 0;
    await t.send("!slow", { topic: "outage" });
    await running;
    await t.renameTopic("general", "outage", "✔ outage", { notifyNew: false });
    // The bot has seen the move before the handler goes on.
    await until(() => movesSeen > 0, "the move to reach the bot");
    release();
    const done = await t.reply();
    expect([done.content, done.topic]).toEqual(["done at last", "✔ outage"]);
  });

  it("a message an overlap strategy holds while its topic is renamed is answered in the new name", async () => {
    t = await createTestBot({ plugins: [keeper], now: "2026-03-02T09:00:00Z" });
    movesSeen = 0;
    const id = await t.send("!later", { topic: "queue" });
    await until(() => t!.bot.pending === 1, "the message held in its burst window");
    await t.renameTopic("general", "queue", "queued", { notifyNew: false });
    await until(() => movesSeen > 0, "the move to reach the bot");
    await t.clock.advance(1500);
    const later = await t.reply();
    expect([later.content, later.topic]).toEqual([`later: ${id}`, "queued"]);
  });

  it("a partial move (change_one) moves only the message: the follow, the session and the question stay with the topic", async () => {
    t = await createTestBot({ plugins: [keeper], now: "2026-03-02T09:00:00Z" });
    await t.send("!watch", { topic: "ops" });
    await t.expectReply("watching");
    const stray = await t.send("off topic", { topic: "ops" });
    await t.expectReply("heard 1");
    await t.move(stray, { topic: "misc", propagate: "change_one", notifyNew: false });
    await until(() => t!.realm.message(stray)!.topic === "misc", "the move");
    await t.send("back on topic", { topic: "ops" });
    await t.expectReply("heard 2");
    await t.send("in misc", { topic: "misc" });
    await t.expectNoReply();
    // An open question stays where it was asked when only one message moves.
    await t.send("!name", { topic: "ops" });
    await t.expectReply("What's your name?");
    const question = t.botMessages().at(-1)!.id;
    await t.move(question, { topic: "misc", propagate: "change_one", notifyNew: false });
    await t.send("Max", { topic: "misc" });
    await t.expectNoReply();
    await t.send("Mia", { topic: "ops" });
    const hello = await t.reply();
    expect([hello.content, hello.topic]).toEqual(["Hello, Mia!", "ops"]);
  });

  it("change_later takes the conversation to where its later messages went", async () => {
    t = await createTestBot({ plugins: [keeper], now: "2026-03-02T09:00:00Z" });
    await t.send("early", { topic: "thread" });
    await t.send("!watch", { topic: "thread" });
    await t.expectReply("watching");
    const later = await t.send("a tangent", { topic: "thread" });
    await t.expectReply("heard 1");
    await t.move(later, { topic: "tangent", propagate: "change_later", notifyNew: false });
    await t.send("more", { topic: "tangent" });
    const heard = await t.reply();
    expect([heard.content, heard.topic]).toEqual(["heard 2", "tangent"]);
  });
});
