// bot.reload(): new plugins swapped in between two messages, the queue kept; a failed setup keeps the old ones.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient, type ApiClient } from "topicbot/client";
import { definePlugin, ManualSchedulerClock, type Bot } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { sandboxBot, until, waitForMessage } from "../helpers/bot.js";
import { captureLog, type CapturedLog } from "../helpers/log.js";

/** `!echo` answers `<greeting> <message id>`; its cron job and event listener count into `seen`. */
const seen = { cron: [] as string[], events: [] as string[] };
const echo = definePlugin({
  name: "echo",
  config: z.object({ greeting: z.string().default("echo") }),
  setup(bot, config) {
    bot.command("echo", {}, (ctx) => ctx.reply(`${config.greeting} ${ctx.message.id}`));
    bot.cron("* * * * *", () => void seen.cron.push(config.greeting), { name: "beat" });
    bot.on("reaction", () => void seen.events.push(config.greeting));
  },
});
const extra = definePlugin({
  name: "extra",
  setup(bot) {
    bot.command("extra", {}, (ctx) => ctx.reply("extra here"));
  },
});
const broken = definePlugin({
  name: "broken",
  setup() {
    throw new Error("cannot reach the weather service");
  },
});

describe("bot.reload()", () => {
  let sandbox: Sandbox;
  let bot: Bot;
  let human: ApiClient;
  let log: CapturedLog;
  const clock = new ManualSchedulerClock(Date.parse("2025-01-06T08:59:30Z"));

  beforeAll(async () => {
    sandbox = await startSandbox();
    const mia = sandbox.user("mia");
    human = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
    log = captureLog();
    log.logger.level = "info";
    bot = sandboxBot(sandbox, {
      logger: log.logger,
      plugins: [{ plugin: echo, settings: { greeting: "v1" } }],
      schedulerClock: clock,
    });
    bot.command("own", {}, (ctx) => ctx.reply("own command"));
    await bot.start();
  });

  afterAll(async () => {
    await bot?.stop();
    await human?.close();
    await sandbox?.close();
  });

  const send = (topic: string, content: string) =>
    human.messages.send({ type: "channel", to: "general", topic, content });
  const answerTo = async (id: number, topic: string) =>
    (
      await waitForMessage(
        sandbox,
        0,
        (m) =>
          m.senderId === sandbox.bot.userId && m.topic === topic && m.content.endsWith(`${id}`),
      )
    ).content;

  it("swaps plugins and settings in: commands, cron jobs and listeners of the new set only; the bot's own commands stay", async () => {
    const before = await send("reload", "!echo");
    expect(await answerTo(before.id, "reload")).toBe(`v1 ${before.id}`);

    await bot.reload({ plugins: [{ plugin: echo, settings: { greeting: "v2" } }, extra] });
    const after = await send("reload", "!echo");
    expect(await answerTo(after.id, "reload")).toBe(`v2 ${after.id}`);
    expect(bot.commands().map((c) => c.name)).toEqual(["own", "echo", "extra", "help"]);
    const start = sandbox.realm.messages.length;
    await send("own", "!own");
    await waitForMessage(sandbox, start, (m) => m.content === "own command");
    await send("own", "!extra");
    await waitForMessage(sandbox, start, (m) => m.content === "extra here");

    // One job named "beat" (the old one cancelled, its name passed over), run once with v2.
    expect(bot.scheduler.jobs().map((j) => j.name)).toEqual(["beat"]);
    clock.advance(60_000);
    await until(() => seen.cron.length > 0, "the cron job's run");
    expect(seen.cron).toEqual(["v2"]);

    await human.messages.addReaction({ message_id: after.id, emoji_name: "thumbs_up" });
    await until(() => seen.events.length > 0, "the reaction listener");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.events).toEqual(["v2"]);
  });

  it("applies a new log level: the handled-message debug lines appear from the reload on", async () => {
    const handled = (id: number) => log.lines().some((l) => l.msg === `handled message ${id}`);
    const quiet = await send("level", "!echo");
    await answerTo(quiet.id, "level");
    expect(handled(quiet.id)).toBe(false);
    await bot.reload({ logLevel: "debug" });
    const loud = await send("level", "!echo");
    await answerTo(loud.id, "level");
    await until(() => handled(loud.id), "the debug line of the handled message");
    expect(log.lines().some((l) => l.msg === "reloaded")).toBe(true);
  });

  it("keeps the running plugins when the new set fails to set up, and says which plugin failed", async () => {
    await expect(bot.reload({ plugins: [extra, broken] })).rejects.toThrow(
      /plugin "broken" failed in setup: cannot reach the weather service/,
    );
    const after = await send("failed reload", "!echo");
    expect(await answerTo(after.id, "failed reload")).toBe(`v2 ${after.id}`);
    expect(bot.scheduler.jobs().map((j) => j.name)).toEqual(["beat"]);
  });

  it("loses no message and handles none twice while reloads run under a stream of commands", async () => {
    const ids: number[] = [];
    const sending = (async () => {
      for (let i = 0; i < 40; i++) ids.push((await send(`load ${i % 4}`, "!echo")).id);
    })();
    for (let r = 0; r < 8; r++) {
      await bot.reload({ plugins: [{ plugin: echo, settings: { greeting: `r${r}` } }] });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await sending;
    const answers = () =>
      sandbox.realm.messages
        .filter((m) => m.senderId === sandbox.bot.userId && m.topic.startsWith("load "))
        .map((m) => Number(m.content.split(" ")[1]));
    await until(() => answers().length >= ids.length, "an answer to every command", 15_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect([...answers()].sort((a, b) => a - b)).toEqual(ids);
  });
});
