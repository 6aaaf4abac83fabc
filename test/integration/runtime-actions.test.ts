import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { ManualClock } from "topicbot/sandbox";
import { definePlugin } from "topicbot";

// Saturday 1 March 2025, 12:00 UTC; the sandbox and the bot share this clock.
const clock = new ManualClock(Date.parse("2025-03-01T12:00:00Z"));

const actions = definePlugin({
  name: "actions",
  setup(bot) {
    bot.command("react", {}, (ctx) => ctx.react(":thumbs_up:"));
    bot.command("later", {}, async (ctx) => {
      const { scheduledMessageId } = await ctx.schedule("time's up!", ctx.command.text);
      await ctx.reply(`scheduled ${scheduledMessageId}`);
    });
    bot.command("read", {}, async (ctx) => {
      await ctx.markTopicRead();
      await ctx.reply("marked");
    });
    bot.command("upload", {}, async (ctx) => {
      const file = await ctx.upload(Buffer.from("hello file"), "notes [v1].txt");
      await ctx.reply(file.markdown);
    });
    bot.command("report", {}, async (ctx) => {
      await ctx.report("spam");
      await ctx.reply("reported");
    });
    bot.command("star", {}, async (ctx) => {
      if (ctx.conversation.type !== "channel") return;
      const result = await ctx.flags({
        narrow: [
          { operator: "channel", operand: ctx.conversation.channel },
          { operator: "topic", operand: ctx.conversation.topic },
        ],
        op: "add",
        flag: "starred",
      });
      await ctx.reply(`starred ${result.updated_count} of ${result.processed_count}`);
    });
    bot.command("tell", {}, async (ctx) => {
      const sent = await ctx.send({ to: [ctx.sender.userId], content: "psst" });
      await ctx.reply(`sent ${sent.ids.length}`);
    });
  },
});

describe("ctx actions against the sandbox", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({
      plugins: [actions],
      config: { now: () => clock.now(), timeZone: "Europe/Paris" },
      sandbox: { clock, settings: { moderationRequestChannel: "sandbox" } },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("react adds a reaction to the message", async () => {
    const id = await t.send("!react", { topic: "actions" });
    await expect
      .poll(() => t.sandbox.realm.message(id)?.reactions, { timeout: 5_000 })
      .toEqual([expect.objectContaining({ emojiName: "thumbs_up", userId: t.sandbox.bot.userId })]);
  });

  it("schedule takes a human time in the configured zone and the message arrives then", async () => {
    await t.send("!later tomorrow 9:00", { topic: "actions" });
    const confirmation = await t.reply();
    const id = Number(/scheduled (\d+)/.exec(confirmation.content)![1]);
    const pending = t.sandbox.realm.scheduler.pending.get(id)!;
    expect(pending.deliverAt).toBe(Date.parse("2025-03-02T08:00:00Z") / 1000);
    clock.set(Date.parse("2025-03-02T08:00:01Z"));
    expect(await t.reply()).toMatchObject({ content: "time's up!", topic: "actions" });
  });

  it("markTopicRead marks the topic's messages read for the bot", async () => {
    const first = await t.send("just chatting", { topic: "unread" });
    expect(t.sandbox.realm.message(first)!.flags.get(t.sandbox.bot.userId)?.has("read")).toBe(
      false,
    );
    await t.send("!read", { topic: "unread" });
    expect((await t.reply()).content).toBe("marked");
    expect(t.sandbox.realm.message(first)!.flags.get(t.sandbox.bot.userId)?.has("read")).toBe(true);
  });

  it("upload returns the URL and a Markdown link with the stored file name", async () => {
    await t.send("!upload", { topic: "actions" });
    const link = (await t.reply()).content;
    expect(link).toMatch(/^\[notes-v1\.txt\]\(\/user_uploads\/\S+\)$/);
  });

  it("report posts to the moderation channel", async () => {
    const id = await t.send("!report", { topic: "actions" });
    expect((await t.reply()).content).toBe("reported");
    const notice = t.sandbox.realm.messages.find(
      (m) => m.streamId === t.sandbox.realm.channelByName("sandbox")!.streamId && m.id > id,
    );
    expect(notice?.content).toContain("spam");
  });

  it("flags changes a flag over a narrow and returns the counts", async () => {
    await t.send("one", { topic: "stars" });
    await t.send("two", { topic: "stars" });
    await t.send("!star", { topic: "stars" });
    expect((await t.reply()).content).toBe("starred 3 of 3");
  });

  it("send reaches users directly", async () => {
    await t.send("!tell", { topic: "actions" });
    expect(await t.reply()).toMatchObject({ type: "direct", content: "psst" });
    expect((await t.reply()).content).toBe("sent 1");
  });
});
