import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { definePlugin, type ListenerOptions } from "topicbot";

/** A plugin whose catch-all listener comes before its command, as zulip_bots ports are written. */
const echoing = (options: ListenerOptions = {}) =>
  definePlugin({
    name: "echoing",
    setup(bot) {
      bot.hear(/.*/, (ctx) => ctx.reply(`heard: ${JSON.stringify(ctx.text)}`), options);
      bot.command("ping", {}, (ctx) => ctx.reply("pong"));
    },
  });

describe("routing order (issue 13, item 11): commands, listeners, built-in help, unknown-command reply", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("tries commands before listeners, whatever the registration order", async () => {
    t = await createTestBot({ plugins: [echoing()] });
    await t.send("!ping");
    await t.expectReply("pong");
    await t.send("!what");
    await t.expectReply('heard: "what"');
  });

  it("lets a catch-all listener shadow help by default, and not with shadowsHelp: false", async () => {
    t = await createTestBot({ plugins: [echoing()] });
    await t.send("!help");
    await t.expectReply('heard: "help"');
    await t.close();
    t = await createTestBot({ plugins: [echoing({ shadowsHelp: false })] });
    await t.send("!help");
    await t.expectReply(/ping/);
    await t.send("!anything");
    await t.expectReply('heard: "anything"');
  });

  it("answers what nothing matched with the unknown-command reply, last", async () => {
    const commandsOnly = definePlugin({
      name: "only",
      setup(bot) {
        bot.command("ping", {}, (ctx) => ctx.reply("pong"));
      },
    });
    t = await createTestBot({ plugins: [commandsOnly] });
    await t.send("!pnig");
    const reply = await t.reply();
    expect(reply.content).toBe(
      "I don't know the command `pnig`. Did you mean `!ping`? `!help` lists what I can do.",
    );
  });
});

describe('respondTo: "mentions" (issue 13, item 10): zulip_bots\' rule', () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("takes one-to-one DMs and leading mentions, group DMs only when mentioned, no prefix", async () => {
    t = await createTestBot({
      plugins: [echoing({ shadowsHelp: false })],
      config: { respondTo: "mentions", unknownCommandReply: false },
    });
    const name = t.bot.me.fullName;
    await t.dm("hello there");
    await t.expectReply('heard: "hello there"');
    await t.dm("hi all", { to: ["olivia"] });
    await t.expectNoReply();
    await t.dm(`@**${name}** hi all`, { to: ["olivia"] });
    await t.expectReply('heard: "hi all"');
    await t.send("!ping");
    await t.expectNoReply();
    await t.send(`@**${name}** ping`);
    await t.expectReply("pong");
    // Stripped on the left only, as zulip_bots does (the server already drops trailing spaces).
    await t.send(`@_**${name}**   two  words`);
    await t.expectReply('heard: "two  words"');
  });
});
