// Each message's outcome through a running bot: counted handled or failed once, a pipeline that throws logged, its lane released.
import { expect, it } from "vitest";
import { createTestBot } from "topicbot/testing";
import { definePlugin } from "topicbot";
import { captureLog } from "../helpers/log.js";

const plugin = definePlugin({
  name: "outcomes",
  setup(bot) {
    bot.use(async (ctx, next) => {
      if (ctx.text === "explode") throw new Error("middleware blew up");
      await next();
    });
    bot.command("ok", {}, (ctx) => ctx.reply("fine"));
    bot.command("fail", {}, () => {
      throw new Error("handler blew up");
    });
    bot.command("later", {}, async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await ctx.reply("later");
    });
  },
});

/** The value of a counter line in the Prometheus text, 0 when absent. */
function counter(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{type="message"}`));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

it("counts handled and failed messages once each, logs a pipeline that throws, and moves on", async () => {
  const log = captureLog();
  const t = await createTestBot({ plugins: [plugin], logger: log.logger });
  try {
    // All in one topic: each must release the lane for the next to run.
    await t.send("!ok");
    await t.expectReply("fine");
    await t.send("!explode");
    await t.send("!fail");
    await t.expectReply(/something went wrong/);
    await t.send("!later");
    await t.expectReply("later");
    await t.send("!ok");
    await t.expectReply("fine");
    await t.settle();
    const text = await t.bot.metrics.registry.expose();
    // Failed: the middleware's throw and the handler's. Handled: ok, later, ok, and the bot's
    // own four replies (seen on the queue and passed over, which counts as handled).
    expect(counter(text, "topicbot_events_failed_total")).toBe(2);
    expect(counter(text, "topicbot_events_handled_total")).toBe(7);
    const failed = log.lines().filter((l) => l.msg === "message pipeline failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toEqual(
      expect.objectContaining({ err: expect.objectContaining({ message: "middleware blew up" }) }),
    );
  } finally {
    await t.close();
  }
});
