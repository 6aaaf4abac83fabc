import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin, ManualSchedulerClock, type Bot } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { schedulesConfig } from "../../src/scheduler/config.js";
import { sandboxBot, until } from "../helpers/bot.js";
import { captureLog, type CapturedLog } from "../helpers/log.js";
import { parsePrometheus } from "../helpers/prometheus.js";

// Monday 6 January 2025, 08:59 UTC.
const START = Date.parse("2025-01-06T08:59:00Z");

const digest = definePlugin({
  name: "digest",
  description: "Posts a daily digest",
  setup(bot) {
    bot.cron(
      "0 9 * * *",
      async ({ scheduledAt }) => {
        await bot.api.messages.send({
          type: "channel",
          to: "general",
          topic: "digest",
          content: `Digest for ${scheduledAt.toISOString().slice(0, 10)}`,
        });
      },
      { timeZone: "UTC" },
    );
    bot.cron(
      "0 9 * * *",
      () => {
        throw new Error("the digest source is down");
      },
      { timeZone: "UTC" },
    );
    bot.cron("*/5 * * * *", () => undefined, { name: "tick", timeZone: "UTC" });
  },
});

describe("cron jobs of plugins and of the config run on the bot's scheduler", () => {
  let sandbox: Sandbox;
  let bot: Bot;
  let log: CapturedLog;
  const clock = new ManualSchedulerClock(START);

  beforeAll(async () => {
    sandbox = await startSandbox();
    log = captureLog();
    bot = sandboxBot(sandbox, {
      plugins: [digest],
      logger: log.logger,
      schedulerClock: clock,
      schedules: schedulesConfig.parse([
        {
          name: "standup",
          cron: "0 9 * * 1-5",
          timeZone: "Europe/Paris",
          channel: "general",
          topic: "standup",
          message: "Stand-up! {{ weekday }} {{ time }}",
        },
      ]),
    });
    await bot.start();
  });

  afterAll(async () => {
    await bot.stop();
    await sandbox.close();
  });

  const posted = (from: number) =>
    sandbox.realm.messages.slice(from).map((m) => [m.topic, m.content]);
  const settled = () =>
    until(() => bot.scheduler.jobs().every((j) => !j.running), "jobs to finish");

  it("names jobs after the plugin and expression unless named, keeping names unique", () => {
    expect(bot.scheduler.jobs().map((j) => j.name)).toEqual([
      "digest: 0 9 * * *",
      "digest: 0 9 * * * #2",
      "tick",
      "standup",
    ]);
  });

  it("fires under the fake clock and posts; a failing job is logged with its name and plugin", async () => {
    const before = sandbox.realm.messages.length;
    await clock.advance(59_000);
    await settled();
    expect(posted(before)).toEqual([]);
    await clock.advance(1_000); // 09:00 UTC: the digest
    await settled();
    expect(posted(before)).toEqual([["digest", "Digest for 2025-01-06"]]);
    const failure = log.lines().find((l) => l.msg === 'cron job "digest: 0 9 * * * #2" failed');
    expect(failure).toMatchObject({ plugin: "digest", job: "digest: 0 9 * * * #2", level: 50 });

    await clock.set(Date.parse("2025-01-06T08:00:00Z") + 86_400_000); // Tuesday 09:00 in Paris
    await settled();
    expect(posted(before).at(-1)).toEqual(["standup", "Stand-up! Tuesday 09:00"]);
  });

  it("counts runs in the metrics", async () => {
    const runs = parsePrometheus(await bot.metrics.registry.expose()).get(
      "topicbot_cron_runs_total",
    )!;
    const count = (job: string, outcome: string) =>
      runs.samples.find((s) => s.labels.job === job && s.labels.outcome === outcome)?.value;
    expect(count("digest: 0 9 * * *", "ok")).toBe(1);
    expect(count("digest: 0 9 * * * #2", "failed")).toBe(1);
    expect(count("standup", "ok")).toBe(1);
  });

  it("stops every job with the bot", async () => {
    await bot.stop();
    expect(bot.scheduler.jobs()).toEqual([]);
    expect(clock.pending).toBe(0);
    const before = sandbox.realm.messages.length;
    await clock.advance(2 * 86_400_000);
    expect(sandbox.realm.messages.length).toBe(before);
    expect(() => bot.cron("* * * * *", () => undefined)).toThrow(/the scheduler is stopped/);
  });
});
