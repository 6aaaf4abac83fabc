// Harness options ported zulip_bots tests need: the bot's name and email, catch-all plugins in the defaults, the test speaking as the bot.
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin } from "../../src/bot/plugin.js";
import { createTestBot, describePluginDefaults, type TestBot } from "../../src/testing/index.js";

/** Answers every message that reaches it, like most zulip_bots bots: no commands, no `!help` of its own. */
const parrot = definePlugin({
  name: "parrot",
  description: "Repeats what it is told",
  setup(bot) {
    bot.hear(/[\s\S]*/, (ctx) => ctx.reply(`you said: ${ctx.text.trim() || "nothing"}`));
  },
});

/** A zulip_bots-style bot: one handler takes every message that reaches the bot, `!help` included. */
const squawker = definePlugin({
  name: "squawker",
  description: "Squawks at everything",
  setup(bot) {
    bot.use((ctx) => ctx.reply("squawk"));
  },
});

describePluginDefaults(parrot);
describePluginDefaults(squawker);

describe("createTestBot for ported tests", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("takes the bot's name and email, and the bot answers mentions of that name", async () => {
    t = await createTestBot({
      plugins: [parrot],
      botName: "test-bot",
      botEmail: "test-bot@example.com",
    });
    expect(t.bot.me).toMatchObject({ fullName: "test-bot", email: "test-bot@example.com" });
    expect(t.sandbox.bot.email).toBe("test-bot@example.com");
    await t.send("@**test-bot** hello");
    await t.expectReply("you said: hello");
  });

  it("does not count what the test sends as the bot among the bot's replies", async () => {
    t = await createTestBot({ plugins: [parrot] });
    await t.send("a note the test posts as the bot", { as: "bot" });
    await t.clientFor("bot").messages.send({
      type: "channel",
      to: "general",
      topic: "test",
      content: "another one",
    });
    await t.expectNoReply();
    expect(t.botMessages()).toEqual([]);
    await t.dm("hi");
    await t.expectReply("you said: hi");
  });

  it("refuses a plugin whose name breaks the plugin-name rule, in definePlugin and createTestBot alike", async () => {
    const bad = { name: "Bad Name", setup() {} };
    expect(() => definePlugin(bad)).toThrow(/plugin name "Bad Name" is invalid/);
    await expect(createTestBot({ plugins: [bad] })).rejects.toThrow(/plugin name "Bad Name"/);
  });
});
