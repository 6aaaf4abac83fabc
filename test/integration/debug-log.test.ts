// LOG_LEVEL=debug: one log line per handled message naming the plugin, the handler and how long it took.
import { expect, it } from "vitest";
import { createTestBot } from "topicbot/testing";
import { definePlugin } from "topicbot";
import { captureLog } from "../helpers/log.js";

const ping = definePlugin({
  name: "pinger",
  setup(bot) {
    bot.command("ping", {}, (ctx) => ctx.reply("pong"));
    bot.hear(/^hello$/i, (ctx) => ctx.reply("hi"));
  },
});

it("logs each handled message with plugin, handler and duration at debug level", async () => {
  const log = captureLog();
  const t = await createTestBot({ plugins: [ping], logger: log.logger });
  try {
    await t.send("!ping");
    await t.expectReply("pong");
    await t.send("!hello");
    await t.expectReply("hi");
    await t.settle(); // the line is written when the handler returns, after its reply
    const handled = log.lines().filter((l) => String(l.msg).startsWith("handled message"));
    expect(handled).toEqual([
      expect.objectContaining({
        plugin: "pinger",
        handler: "command ping",
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({
        plugin: "pinger",
        handler: "listener",
        durationMs: expect.any(Number),
      }),
    ]);
  } finally {
    await t.close();
  }
});
