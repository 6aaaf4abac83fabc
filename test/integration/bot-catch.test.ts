// Handler errors as PluginErrors: middleware around next() sees them, bot.catch gets what none caught, the default answers otherwise.
import { afterEach, expect, it } from "vitest";
import {
  definePlugin,
  PluginError,
  type Middleware,
  type MessageContext,
} from "../../src/index.js";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import { captureLog } from "../helpers/log.js";

const failing = definePlugin({
  name: "failing",
  setup(bot) {
    bot.command("boom", { description: "Throws" }, () => {
      throw new Error("kaboom");
    });
    bot.command("later", { description: "Rejects" }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      throw new Error("late kaboom");
    });
    bot.command("ping", { description: "Answers" }, (ctx) => ctx.reply("pong"));
  },
});

let t: TestBot | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

it("lets a middleware around next() catch a handler's error as a PluginError naming plugin, handler and message", async () => {
  const seen: PluginError[] = [];
  const guard = definePlugin({
    name: "guard",
    setup(bot) {
      const around: Middleware<MessageContext> = async (ctx, next) => {
        try {
          await next();
        } catch (error) {
          if (!(error instanceof PluginError)) throw error;
          seen.push(error);
          await ctx.reply(`caught ${error.handler}`);
        }
      };
      bot.use(around);
    },
  });
  t = await createTestBot({ plugins: [guard, failing] });
  const id = await t.send("!boom");
  expect((await t.reply()).content).toBe("caught command boom");
  await t.expectNoReply();
  expect(seen).toHaveLength(1);
  const [error] = seen;
  expect(error).toMatchObject({ plugin: "failing", handler: "command boom", messageId: id });
  expect(error!.ctx.message.id).toBe(id);
  expect((error!.cause as Error).message).toBe("kaboom");
  expect(error!.message).toBe(`plugin failing: command boom failed on message ${id}: kaboom`);
  // A rejected promise takes the same way up.
  await t.send("!later");
  expect((await t.reply()).content).toBe("caught command later");
  expect(seen[1]).toMatchObject({ plugin: "failing", handler: "command later" });
});

it("gives bot.catch what no middleware caught, instead of the default reply, and goes on with the next message", async () => {
  const log = captureLog();
  t = await createTestBot({ plugins: [failing], logger: log.logger });
  const caught: PluginError[] = [];
  t.bot.catch(async (error) => {
    caught.push(error);
    await error.ctx.reply(`sorry, ${error.plugin} failed`);
  });
  await t.send("!boom");
  expect((await t.reply()).content).toBe("sorry, failing failed");
  await t.expectNoReply();
  expect(caught.map((e) => e.handler)).toEqual(["command boom"]);
  expect(log.lines().filter((l) => l.level === 50)).toEqual([]);
  await t.send("!ping");
  expect((await t.reply()).content).toBe("pong");
});

it("without bot.catch, sends the usual failure reply and logs the plugin; a bot.catch that throws falls back to it", async () => {
  const log = captureLog();
  t = await createTestBot({ plugins: [failing], logger: log.logger });
  await t.send("!boom");
  expect((await t.reply()).content).toMatch(/^Sorry, something went wrong/);
  expect(log.lines().find((l) => l.level === 50)).toMatchObject({
    plugin: "failing",
    handler: "command boom",
  });
  t.bot.catch(() => {
    throw new Error("the catcher broke");
  });
  await t.send("!boom");
  expect((await t.reply()).content).toMatch(/^Sorry, something went wrong/);
  expect(log.lines().some((l) => l.msg === "the bot.catch handler threw")).toBe(true);
  await t.send("!ping");
  expect((await t.reply()).content).toBe("pong");
});
