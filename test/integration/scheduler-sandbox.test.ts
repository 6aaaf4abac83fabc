import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { createBotMetrics } from "../../src/metrics/bot.js";
import { ManualSchedulerClock } from "../../src/scheduler/clock.js";
import { scheduleJob, schedulesConfig } from "../../src/scheduler/config.js";
import { Scheduler } from "../../src/scheduler/scheduler.js";
import { captureLog } from "../helpers/log.js";
import { parsePrometheus } from "../helpers/prometheus.js";

describe("a configured schedule posts to the sandbox under a fake clock", () => {
  let sandbox: Sandbox;
  let client: ApiClient;

  beforeAll(async () => {
    sandbox = await startSandbox();
    client = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
    });
  });

  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });

  it("fires at 09:00 in its time zone, posts, and logs a failed post with the job's name", async () => {
    const clock = new ManualSchedulerClock(Date.parse("2025-01-06T07:59:00Z")); // Monday, 08:59 in Paris
    const log = captureLog();
    const metrics = createBotMetrics();
    const scheduler = new Scheduler({
      clock,
      logger: log.logger,
      onJob: (e) => metrics.cronRun(e.name, e.outcome),
    });
    const entries = schedulesConfig.parse([
      {
        name: "standup",
        cron: "0 9 * * 1-5",
        timeZone: "Europe/Paris",
        channel: "general",
        topic: "standup",
        message: "Stand-up time! {{ weekday }} {{ date }} {{ time }}",
      },
      {
        name: "to-nowhere",
        cron: "0 9 * * 1-5",
        timeZone: "Europe/Paris",
        channel: "no-such-channel",
        topic: "x",
        message: "lost",
      },
    ]);
    const send = (post: { to: string | number; topic: string; content: string }) =>
      client.messages.send({ type: "channel", ...post });
    entries.forEach((entry, i) => {
      const { expression, job, options } = scheduleJob(entry, send, i);
      scheduler.schedule(expression, job, options);
    });

    const before = sandbox.realm.messages.length;
    await clock.advance(59_000);
    expect(sandbox.realm.messages.length).toBe(before);
    await clock.advance(1_000); // 09:00 Paris
    // The post is real HTTP: wait (bounded) for the job to finish.
    for (let i = 0; i < 200 && scheduler.jobs().some((j) => j.running); i++)
      await new Promise((r) => setTimeout(r, 5));
    const posted = sandbox.realm.messages.slice(before);
    expect(posted.map((m) => [m.topic, m.content])).toEqual([
      ["standup", "Stand-up time! Monday 2025-01-06 09:00"],
    ]);
    const failure = log.lines().find((l) => l.level === 50);
    expect(failure).toMatchObject({ job: "to-nowhere", msg: 'cron job "to-nowhere" failed' });
    expect((failure!.err as { message: string }).message).toMatch(/STREAM_DOES_NOT_EXIST/);

    const families = parsePrometheus(await metrics.registry.expose());
    expect(families.get("topicbot_cron_runs_total")!.samples).toEqual(
      expect.arrayContaining([
        { name: "topicbot_cron_runs_total", labels: { job: "standup", outcome: "ok" }, value: 1 },
        {
          name: "topicbot_cron_runs_total",
          labels: { job: "to-nowhere", outcome: "failed" },
          value: 1,
        },
      ]),
    );
    expect(await scheduler.stop(1_000)).toEqual([]);
  });
});
