import { describe, expect, it } from "vitest";
import { ManualSchedulerClock } from "../../src/scheduler/clock.js";
import { CronExpressionError } from "../../src/scheduler/cron.js";
import { Scheduler, type JobEvent } from "../../src/scheduler/scheduler.js";
import { captureLog } from "../helpers/log.js";

const START = Date.parse("2025-01-06T08:58:30Z"); // a Monday

/** A promise the test resolves by hand, to keep a job "running". */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe("Scheduler", () => {
  it("fires a job at each fire time of the fake clock, with its scheduled time", async () => {
    const clock = new ManualSchedulerClock(START);
    const scheduler = new Scheduler({ clock, timezone: "UTC" });
    const seen: string[] = [];
    const job = scheduler.schedule(
      "0 9 * * *",
      ({ scheduledAt, name }) => {
        seen.push(`${name} ${scheduledAt.toISOString()}`);
      },
      { name: "daily" },
    );
    expect(job.nextRun()?.toISOString()).toBe("2025-01-06T09:00:00.000Z");

    await clock.advance(60_000); // 08:59:30
    expect(seen).toEqual([]);
    await clock.advance(30_000); // 09:00:00
    expect(seen).toEqual(["daily 2025-01-06T09:00:00.000Z"]);
    await clock.advance(2 * 86_400_000);
    expect(seen).toEqual([
      "daily 2025-01-06T09:00:00.000Z",
      "daily 2025-01-07T09:00:00.000Z",
      "daily 2025-01-08T09:00:00.000Z",
    ]);
    expect(job.runs).toBe(3);
    await scheduler.stop();
  });

  it("never overlaps a job with itself: a fire time during a run is skipped and logged", async () => {
    const clock = new ManualSchedulerClock(START);
    const log = captureLog();
    const events: JobEvent[] = [];
    const scheduler = new Scheduler({ clock, logger: log.logger, onJob: (e) => events.push(e) });
    const slow = gate();
    let started = 0;
    const job = scheduler.schedule(
      "* * * * *",
      async () => {
        started++;
        await slow.promise;
      },
      { name: "slow-report" },
    );

    await clock.advance(30_000); // 08:59:00: first run starts and hangs
    expect(started).toBe(1);
    expect(job.running).toBe(true);
    await clock.advance(60_000); // 09:00:00: still running → skipped
    await clock.advance(60_000); // 09:01:00: skipped again
    expect(started).toBe(1);
    expect(job.skipped).toBe(2);
    const skips = log.lines().filter((l) => String(l.msg).includes("skipped this run"));
    expect(skips).toHaveLength(2);
    expect(skips[0]).toMatchObject({
      job: "slow-report",
      level: 40,
      scheduledAt: "2025-01-06T09:00:00.000Z",
    });

    slow.open();
    await clock.advance(60_000); // 09:02:00: free again → runs
    expect(started).toBe(2);
    expect(events.map((e) => e.outcome)).toEqual(["skipped", "skipped", "ok", "ok"]);
    await scheduler.stop();
  });

  it("logs a failing job with its name and keeps its schedule", async () => {
    const clock = new ManualSchedulerClock(START);
    const log = captureLog();
    const scheduler = new Scheduler({ clock, logger: log.logger });
    let calls = 0;
    scheduler.schedule(
      "*/30 * * * * *",
      () => {
        calls++;
        throw new Error("database is down");
      },
      { name: "nightly-export" },
    );
    await clock.advance(60_000);
    expect(calls).toBe(2);
    const errors = log.lines().filter((l) => l.level === 50);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({
      job: "nightly-export",
      msg: 'cron job "nightly-export" failed',
    });
    expect((errors[0]!.err as { message: string }).message).toBe("database is down");
    await scheduler.stop();
  });

  it("uses the logger given per job (a plugin's own)", async () => {
    const clock = new ManualSchedulerClock(START);
    const root = captureLog();
    const plugin = captureLog();
    const scheduler = new Scheduler({ clock, logger: root.logger });
    scheduler.schedule("0 * * * * *", () => Promise.reject(new Error("boom")), {
      name: "p",
      logger: plugin.logger.child({ plugin: "standup" }),
    });
    await clock.advance(60_000);
    expect(plugin.lines().find((l) => l.level === 50)).toMatchObject({
      plugin: "standup",
      job: "p",
    });
    expect(root.lines().filter((l) => l.level === 50)).toEqual([]);
    await scheduler.stop();
  });

  it("reads the expression in the job's time zone", async () => {
    const clock = new ManualSchedulerClock(Date.parse("2025-01-06T07:00:00Z"));
    const scheduler = new Scheduler({ clock });
    const runs: string[] = [];
    scheduler.schedule(
      "0 9 * * *",
      ({ scheduledAt }) => void runs.push(scheduledAt.toISOString()),
      {
        timezone: "Europe/Paris",
      },
    );
    await clock.advance(3 * 3_600_000);
    expect(runs).toEqual(["2025-01-06T08:00:00.000Z"]);
    await scheduler.stop();
  });

  it("rejects a bad expression or duplicate name, naming the job", () => {
    const scheduler = new Scheduler({ clock: new ManualSchedulerClock(START) });
    expect(() => scheduler.schedule("* * 99 * *", () => undefined, { name: "bad" })).toThrow(
      CronExpressionError,
    );
    expect(() => scheduler.schedule("* * 99 * *", () => undefined, { name: "bad" })).toThrow(
      /cron job "bad": invalid cron expression "\* \* 99 \* \*"/,
    );
    scheduler.schedule("* * * * *", () => undefined, { name: "once" });
    expect(() => scheduler.schedule("* * * * *", () => undefined, { name: "once" })).toThrow(
      /cron job "once": a job with this name is already scheduled/,
    );
  });

  it("skips fire times missed while the process slept, running once on waking", async () => {
    const clock = new ManualSchedulerClock(START);
    const scheduler = new Scheduler({ clock });
    let runs = 0;
    scheduler.schedule("* * * * *", () => void runs++);
    // Jump 10 minutes at once, as after a suspended laptop: the one due timer fires once.
    const timers = clock.pending;
    expect(timers).toBe(1);
    await clock.jump(START + 10 * 60_000);
    expect(runs).toBe(1);
    expect(scheduler.jobs()[0]!.nextRun()?.toISOString()).toBe("2025-01-06T09:09:00.000Z");
    await clock.advance(60_000);
    expect(runs).toBe(2);
    await scheduler.stop();
  });

  it("cancel stops one job; stop clears every timer and refuses new jobs", async () => {
    const clock = new ManualSchedulerClock(START);
    const scheduler = new Scheduler({ clock });
    let a = 0;
    let b = 0;
    const jobA = scheduler.schedule("* * * * *", () => void a++, { name: "a" });
    scheduler.schedule("* * * * *", () => void b++, { name: "b" });
    jobA.cancel();
    await clock.advance(60_000);
    expect([a, b]).toEqual([0, 1]);
    expect(jobA.nextRun()).toBeUndefined();
    await scheduler.stop();
    expect(clock.pending).toBe(0);
    await clock.advance(600_000);
    expect(b).toBe(1);
    expect(() => scheduler.schedule("* * * * *", () => undefined, { name: "late" })).toThrow(
      /cron job "late": the scheduler is stopped/,
    );
  });

  it("stop waits for a running job to finish", async () => {
    const clock = new ManualSchedulerClock(START);
    const scheduler = new Scheduler({ clock });
    const slow = gate();
    let finished = false;
    scheduler.schedule("* * * * *", async () => {
      await slow.promise;
      finished = true;
    });
    await clock.advance(30_000);
    const stopping = scheduler.stop(5_000);
    setTimeout(() => slow.open(), 5);
    expect(await stopping).toEqual([]);
    expect(finished).toBe(true);
  });

  it("stop gives up after its timeout, aborts the run's signal and names the job", async () => {
    const clock = new ManualSchedulerClock(START);
    const log = captureLog();
    const scheduler = new Scheduler({ clock, logger: log.logger });
    let signal: AbortSignal | undefined;
    scheduler.schedule(
      "* * * * *",
      (ctx) => {
        signal = ctx.signal;
        return new Promise<void>(() => undefined); // never ends
      },
      { name: "stuck" },
    );
    await clock.advance(30_000);
    expect(await scheduler.stop(20)).toEqual(["stuck"]);
    expect(signal?.aborted).toBe(true);
    expect(log.lines().find((l) => l.level === 40)).toMatchObject({
      jobs: ["stuck"],
      timeoutMs: 20,
    });
  });

  it("trigger runs a job now, outside its schedule", async () => {
    const scheduler = new Scheduler({ clock: new ManualSchedulerClock(START) });
    let runs = 0;
    scheduler.schedule("0 0 1 1 *", () => void runs++, { name: "yearly" });
    await scheduler.trigger("yearly");
    expect(runs).toBe(1);
    await expect(scheduler.trigger("nope")).rejects.toThrow(/no cron job named "nope"/);
    await scheduler.stop();
  });

  it("waits longer than a Node timer can in chunks", async () => {
    const clock = new ManualSchedulerClock(Date.parse("2025-01-01T00:00:00Z"));
    const scheduler = new Scheduler({ clock, timezone: "UTC" });
    let runs = 0;
    scheduler.schedule("0 0 1 6 *", () => void runs++); // 1 June: ~151 days away
    await clock.set(Date.parse("2025-05-31T23:59:59Z"));
    expect(runs).toBe(0);
    await clock.set(Date.parse("2025-06-01T00:00:00Z"));
    expect(runs).toBe(1);
    await scheduler.stop();
  });
});
