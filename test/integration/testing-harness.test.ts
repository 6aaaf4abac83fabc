import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arg, definePlugin } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";

const fixture = definePlugin({
  name: "fixture",
  description: "Test double for the harness's own tests.",
  setup(bot) {
    bot.command("ping", { description: "pong" }, (ctx) => ctx.reply("pong"));
    bot.command("twice", { description: "answers twice" }, async (ctx) => {
      await ctx.reply("one");
      await ctx.reply("two");
    });
    bot.command("silent", { description: "says nothing" }, () => undefined);
    bot.command("whoami", { description: "names the sender" }, (ctx) =>
      ctx.reply(
        `${ctx.sender.fullName} in ${ctx.conversation.type === "channel" ? ctx.conversation.channel : "DM"}`,
      ),
    );
    bot.command(
      "later",
      { description: "schedules", args: { when: arg.time(), what: arg.rest() } },
      async (ctx) => {
        await ctx.schedule(ctx.command.args.what, ctx.command.args.when);
        await ctx.reply("noted");
      },
    );
    bot.command("like", { description: "reacts" }, (ctx) => ctx.react("thumbs_up"));
    bot.command("file", { description: "uploads" }, async (ctx) => {
      const up = await ctx.upload(Buffer.from(ctx.command.text), "note.txt");
      await ctx.reply(up.markdown);
    });
    bot.command("spam", { description: "reports" }, async (ctx) => {
      await ctx.report("other", "testing reports");
      await ctx.reply("reported");
    });
    bot.command("boom", { description: "throws" }, () => {
      throw new Error("kaboom");
    });
  },
});

describe("createTestBot", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({
      plugins: [fixture],
      now: "2025-03-03T08:00:00Z",
      config: { timeZone: "UTC" },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it("runs a dialog: exact text, patterns, several answers, and silence", async () => {
    await t.dialog([
      ["!ping", "pong"],
      ["!twice", ["one", /tw./]],
      ["just chatting", null],
      ["!silent", null],
    ]);
    await t.dialog([["ping", "pong"]], { dm: true, as: "adam" });
  });

  it("fails a dialog loudly when the bot is silent, showing the conversation", async () => {
    const error = await t
      .dialog([["!silent", "something"]], { timeoutMs: 200 })
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /step 1 \("!silent"\): The bot sent no message within 200 ms/,
    );
    expect((error as Error).message).toContain("[#general > test] Mia Member: !silent");
  });

  it("fails a dialog when the bot answers more than expected", async () => {
    const error = await t.dialog([["!twice", "one"]]).catch((e: Error) => e);
    expect((error as Error).message).toMatch(
      /step 1 \("!twice"\): the bot said more than expected:\n {2}"two"/,
    );
    expect((error as Error).message).toContain("> [#general > test] Topic Bot: two");
  });

  it("expectReply names what it wanted and what came", async () => {
    await t.send("!ping");
    const error = await t.expectReply(/^pang$/).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/expected: \/\^pang\$\/\n {2}received: "pong"/);
  });

  it("speaks as seeded and created users, in channels created on demand", async () => {
    await t.send("!whoami", { as: "olivia", channel: "ops", topic: "deploys" });
    expect(await t.expectReply("Olivia Owner in ops")).toMatchObject({
      channel: "ops",
      topic: "deploys",
    });
    const zoe = await t.createUser({ handle: "zoe", fullName: "Zoe Zed", role: "moderator" });
    expect(t.realm.users.get(zoe.userId)?.role).toBe(300);
    await t.send("!whoami", { as: "zoe", channel: "ops" });
    await t.expectReply("Zoe Zed in ops");
    await t.dm("whoami", { as: "zoe" });
    await t.expectReply("Zoe Zed in DM");
    expect(() => t.user("nobody")).toThrow(/no sandbox user "nobody"; known: olivia/);
  });

  it("drives scheduled messages with the fake clock", async () => {
    await t.send("!later in 2 hours stretch", { topic: "clock" });
    await t.expectReply("noted");
    expect(t.scheduled()).toEqual([
      expect.objectContaining({
        content: "stretch",
        at: new Date("2025-03-03T10:00:00Z"),
        topic: "clock",
      }),
    ]);
    await t.clock.advance("1h");
    await t.expectNoReply();
    await t.clock.advance("1h");
    expect(await t.expectReply("stretch")).toMatchObject({ topic: "clock" });
    expect(t.scheduled()).toEqual([]);
    await expect(t.clock.set("2025-01-01T00:00:00Z")).rejects.toThrow(/time only moves forward/);
  });

  it("makes reactions, uploads and reports observable", async () => {
    const id = await t.send("!like");
    await t.settle();
    expect(t.reactions(id)).toEqual([
      { emoji: "thumbs_up", userId: t.sandbox.bot.userId, userName: "Topic Bot" },
    ]);
    await t.react(id, "tada", { as: "max" });
    expect(t.reactions(id).map((r) => r.emoji)).toEqual(["thumbs_up", "tada"]);

    await t.send("!file hello there");
    const link = await t.expectReply(/^\[note\.txt\]\(\/user_uploads\/.+\)$/);
    const upload = t.uploads().at(-1)!;
    expect(link.content).toContain(upload.url);
    expect(upload).toMatchObject({ filename: "note.txt", ownerId: t.sandbox.bot.userId });
    expect(upload.data.toString()).toBe("hello there");

    const spam = await t.send("!spam");
    await t.expectReply("reported");
    expect(t.reports().at(-1)).toMatchObject({
      reporterId: t.sandbox.bot.userId,
      authorId: t.user("mia").userId,
      reason: "other reason",
      explanation: "testing reports",
      quoted: "!spam",
      where: "#**general>test**",
    });
    expect(spam).toBeGreaterThan(0);
  });

  it("shows what the bot logged when a plugin throws", async () => {
    await t.send("!boom");
    await t.expectReply(/something went wrong/);
    expect(t.errors().join("\n")).toMatch(/plugin "fixture" failed handling message \d+: kaboom/);
  });

  it("gives the sandbox's fault injection to tests", async () => {
    t.sandbox.faults.add({ route: "POST /messages", status: 502, times: 1 });
    await t.send("!ping").catch(() => undefined);
    await t.send("!ping");
    await t.expectReply("pong");
  });
});

describe("harnesses are independent", () => {
  it("run side by side without sharing state", async () => {
    const [a, b] = await Promise.all([
      createTestBot({ plugins: [fixture] }),
      createTestBot({ plugins: [fixture] }),
    ]);
    try {
      await Promise.all([a.send("!whoami", { as: "adam" }), b.send("!whoami", { as: "gus" })]);
      await a.expectReply("Adam Admin in general");
      await b.expectReply("Gus Guest in general");
      expect(a.sandbox.url).not.toBe(b.sandbox.url);
      expect(a.botMessages()).toHaveLength(1);
      expect(b.botMessages()).toHaveLength(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe("cron jobs and webhooks in the harness", () => {
  const timed = definePlugin({
    name: "timed",
    description: "A cron job and a webhook route.",
    setup(bot) {
      bot.cron(
        "*/30 * * * *",
        async ({ scheduledAt }) => {
          await bot.api.messages.send({
            type: "channel",
            to: "general",
            topic: "cron",
            content: `tick ${scheduledAt.toISOString()}`,
          });
        },
        { timeZone: "UTC" },
      );
      bot.webhook("/hooks/echo", async ({ payload }) => {
        await bot.api.messages.send({
          type: "channel",
          to: "general",
          topic: "hooks",
          content: `got ${JSON.stringify(payload)}`,
        });
      });
    },
  });

  it("runs cron jobs as the fake clock passes them, and takes webhook posts", async () => {
    const t = await createTestBot({ plugins: [timed], now: "2025-03-03T08:10:00Z" });
    try {
      await t.clock.advance("19m");
      await t.expectNoReply();
      await t.clock.advance("1h");
      await t.expectReply("tick 2025-03-03T08:30:00.000Z");
      await t.expectReply("tick 2025-03-03T09:00:00.000Z");
      await t.expectNoReply();
      const answer = await t.webhook("/hooks/echo", { build: 42 });
      expect(answer.status).toBeLessThan(300);
      expect(await t.expectReply('got {"build":42}')).toMatchObject({ topic: "hooks" });
    } finally {
      await t.close();
    }
  });
});
