import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { definePlugin } from "topicbot";
import ping from "../../plugins/ping/index.js";

const say = definePlugin({
  name: "say",
  setup(bot) {
    bot.command("say", { description: "Repeat the text" }, (ctx) => ctx.reply(ctx.command.text));
  },
});

describe("a bot with the ping plugin, over loopback HTTP against the sandbox", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({ plugins: [ping, say] });
  });
  afterAll(async () => {
    await t.close();
  });

  it("answers !ping in a channel topic, in the same topic", async () => {
    await t.send("!ping", { channel: "general", topic: "status" });
    const reply = await t.reply();
    expect(reply).toMatchObject({
      content: "pong",
      type: "channel",
      channel: "general",
      topic: "status",
    });
  });

  it("answers a leading mention of the bot", async () => {
    await t.send("@**Topic Bot** ping", { channel: "sandbox", topic: "mentions" });
    expect(await t.reply()).toMatchObject({
      content: "pong",
      channel: "sandbox",
      topic: "mentions",
    });
  });

  it("answers ping in a direct message, in the same conversation", async () => {
    await t.dm("ping", { as: "adam" });
    const reply = await t.reply();
    expect(reply.content).toBe("pong");
    expect(reply.type).toBe("direct");
    expect(reply.userIds).toEqual(
      [t.sandbox.user("adam").userId, t.sandbox.bot.userId].sort((a, b) => a - b),
    );
  });

  it("ignores messages not addressed to it", async () => {
    await t.send("ping, anyone?", { topic: "chatter" });
    await t.send("!ping", { topic: "chatter" });
    const reply = await t.reply();
    expect(reply.content).toBe("pong");
    // Only one answer in this topic: the unaddressed message was ignored.
    expect(t.botMessages().filter((m) => m.topic === "chatter")).toHaveLength(1);
  });

  it("ignores its own messages", async () => {
    // The bot posts a command itself, then a human does; messages of one topic are handled in order,
    // so had the bot answered itself, that answer would arrive before the human's.
    await t.bot.api.messages.send({
      type: "channel",
      to: "general",
      topic: "self",
      content: "!say to myself",
    });
    await t.send("!say to the human", { topic: "self" });
    expect((await t.reply()).content).toBe("!say to myself");
    expect((await t.reply()).content).toBe("to the human");
  });
});
