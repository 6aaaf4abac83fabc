import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { ManualClock } from "topicbot/sandbox";
import { definePlugin, type BotAccount } from "topicbot";

const clock = new ManualClock(Date.parse("2025-03-01T12:00:00Z"));
let seenInSetup: BotAccount | undefined;

const tools = definePlugin({
  name: "tools",
  setup(bot) {
    seenInSetup = bot.me;
    bot.command("whoami", {}, (ctx) =>
      ctx.reply(`${ctx.me.mention} ${ctx.me.silentMention} ${ctx.me.userId} ${ctx.me.email}`),
    );
    bot.command("clock", {}, (ctx) => ctx.reply(ctx.now().toISOString()));
    bot.command("lunch", {}, (ctx) => ctx.poll("Lunch?", ["Pizza", "Sushi"]));
    bot.command("mark", {}, async (ctx) => {
      const id = Number(ctx.command.text);
      await ctx.react("thumbs_up", { message: id });
      await ctx.unreact("thumbs_up", { message: id });
      await ctx.react("octopus", { message: { id } });
    });
    bot.command("progress", {}, async (ctx) => {
      const sent = await ctx.reply("working...");
      await sent.edit({ content: "done" });
      await ctx.edit(sent.id, { topic: "finished" });
    });
    bot.command("rewrite", {}, (ctx) => ctx.edit(ctx.message.id, { content: "not yours" }));
    bot.command("dm", {}, (ctx) =>
      ctx.send({ to: ctx.command.text, content: "a word in private" }),
    );
    bot.command("dm-topic", {}, (ctx) =>
      ctx.send({ to: ctx.command.text, topic: "x", content: "nope" }),
    );
    bot.command("remember", {}, async (ctx) => {
      await bot.storage.set("mine", ctx.command.text);
      await bot.sharedStorage.set("shared", ctx.command.text);
      await ctx.reply("ok");
    });
    // A catch-all listener (registered before `other`'s command: commands still come first).
    bot.hear(/^(?!help)/, (ctx) => ctx.react("no_such_emoji_anywhere"));
  },
});

const other = definePlugin({
  name: "other",
  setup(bot) {
    bot.command("peek", {}, async (ctx) => {
      const mine = await bot.storage.has("mine");
      const shared = await bot.sharedStorage.get<string>("shared");
      await ctx.reply(`own:${mine} shared:${shared} has:${await bot.sharedStorage.has("shared")}`);
    });
  },
});

describe("the plugin API (issue 13, items 5-9 and 12; ctx.now)", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({
      plugins: [tools, other],
      config: { now: () => clock.now() },
      sandbox: { clock },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("gives the bot's identity and mention strings in setup and on ctx, without an API call", async () => {
    const me = t.bot.me;
    expect(seenInSetup).toMatchObject({
      userId: me.userId,
      mention: `@**${me.fullName}**`,
      silentMention: `@_**${me.fullName}**`,
    });
    await t.send("!whoami");
    await t.expectReply(`@**${me.fullName}** @_**${me.fullName}** ${me.userId} ${me.email}`);
  });

  it("replies with a poll the server stores as a widget (submessages)", async () => {
    await t.send("!lunch");
    const reply = await t.reply();
    const { message } = await t.clientFor("mia").messages.get({ message_id: reply.id });
    expect(message.submessages).toHaveLength(1);
    expect(JSON.parse(message.submessages![0]!.content)).toMatchObject({
      widget_type: "poll",
      extra_data: { question: "Lunch?", options: ["Pizza", "Sushi"] },
    });
  });

  it("tells the time from the bot's clock (ctx.now)", async () => {
    clock.advance(90_000);
    await t.send("!clock");
    await t.expectReply("2025-03-01T12:01:30.000Z");
  });

  it("reacts to and unreacts from any message, not only the one handled", async () => {
    const target = await t.send("react to me, later");
    await t.settle();
    await t.send(`!mark ${target}`);
    await t.settle();
    expect(t.reactions(target).map((r) => r.emoji)).toEqual(["octopus"]);
  });

  it("edits the bot's own reply (content through sent.edit, topic through ctx.edit)", async () => {
    await t.send("!progress");
    const reply = await t.reply();
    await t.settle();
    const { message } = await t
      .clientFor("mia")
      .messages.get({ message_id: reply.id, apply_markdown: false });
    expect(message.content).toBe("done");
    expect(message.subject).toBe("finished");
  });

  it("refuses to edit someone else's content, as the server does, and the command says so", async () => {
    await t.send("!rewrite");
    await t.expectReply(/something went wrong/);
    expect(t.errors().join("\n")).toMatch(/the server refused PATCH \/messages\/\{message_id\}/);
  });

  it("sends a direct message to an email address, and says how to address one with a topic", async () => {
    const mia = t.user("mia");
    await t.send(`!dm ${mia.email}`);
    const dm = await t.reply();
    expect(dm).toMatchObject({ type: "direct", content: "a word in private" });
    await t.send(`!dm-topic ${mia.email}`);
    await t.expectReply(/something went wrong/);
    expect(t.errors().join("\n")).toMatch(/is an email address, so this is a direct message/);
  });

  it("keeps each plugin's storage apart and shares the shared namespace", async () => {
    await t.send("!remember blue");
    await t.expectReply("ok");
    await t.send("!peek");
    await t.expectReply("own:false shared:blue has:true");
  });

  it("logs an action the server refused in a listener, without an apology in the chat", async () => {
    await t.send("!anything at all", { topic: "listener" });
    await t.expectNoReply();
    expect(t.errors().join("\n")).toMatch(
      /the server refused POST \/messages\/\{message_id\}\/reactions/,
    );
  });
});
