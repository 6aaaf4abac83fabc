import { describe, expect, it } from "vitest";
import { ManualSchedulerClock } from "../../src/scheduler/clock.js";
import { scheduleJob, schedulesConfig, scheduleVars } from "../../src/scheduler/config.js";
import { Scheduler } from "../../src/scheduler/scheduler.js";
import type { ChannelPost } from "../../src/webhooks/config.js";

const entry = {
  name: "standup",
  cron: "0 9 * * 1-5",
  timeZone: "Europe/Paris",
  channel: "general",
  topic: "standup {{ date }}",
  message: "Good morning! It is {{ weekday }} {{ time }}.",
};

describe("schedules config", () => {
  it("accepts a valid entry", () => {
    expect(schedulesConfig.parse([entry])).toEqual([entry]);
  });

  it("names the key and the expression for a bad cron or time zone", () => {
    const bad = schedulesConfig.safeParse([{ ...entry, cron: "0 25 * * *" }]);
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual([0, "cron"]);
    expect(bad.error!.issues[0]!.message).toMatch(/invalid cron expression "0 25 \* \* \*": hour/);
    const zone = schedulesConfig.safeParse([{ ...entry, timeZone: "Europe/Pariss" }]);
    expect(zone.error!.issues[0]!.path).toEqual([0, "timeZone"]);
    expect(zone.error!.issues[0]!.message).toMatch(/unknown time zone "Europe\/Pariss"/);
  });

  it("rejects a malformed template, duplicate names and unknown keys", () => {
    const tpl = schedulesConfig.safeParse([{ ...entry, message: "Hi {{ date" }]);
    expect(tpl.error!.issues[0]!.path).toEqual([0, "message"]);
    const dup = schedulesConfig.safeParse([entry, entry]);
    expect(dup.error!.issues[0]).toMatchObject({
      path: [1, "name"],
      message: "standup is used twice",
    });
    const extra = schedulesConfig.safeParse([{ ...entry, chanel: "x" }]);
    expect(extra.error!.issues[0]!.code).toBe("unrecognized_keys");
  });

  it("gives templates the fire time in the schedule's zone", () => {
    expect(scheduleVars("s", new Date("2025-01-06T08:00:00Z"), "Europe/Paris")).toEqual({
      name: "s",
      date: "2025-01-06",
      time: "09:00",
      weekday: "Monday",
      iso: "2025-01-06T08:00:00.000Z",
    });
  });

  it("turns an entry into a job that posts on the fake clock's fire times", async () => {
    const clock = new ManualSchedulerClock(Date.parse("2025-01-03T07:00:00Z")); // Friday
    const scheduler = new Scheduler({ clock });
    const posts: ChannelPost[] = [];
    const [parsed] = schedulesConfig.parse([entry]);
    const { expression, job, options } = scheduleJob(parsed!, async (p) => void posts.push(p));
    scheduler.schedule(expression, job, options);
    await clock.advance(4 * 86_400_000); // to Tuesday 07:00 UTC: Friday and Monday fire
    expect(posts).toEqual([
      { to: "general", topic: "standup 2025-01-03", content: "Good morning! It is Friday 09:00." },
      { to: "general", topic: "standup 2025-01-06", content: "Good morning! It is Monday 09:00." },
    ]);
    await scheduler.stop();
  });

  it("names an unnamed entry by its index", () => {
    const { options } = scheduleJob({ ...entry, name: undefined }, async () => undefined, 2);
    expect(options.name).toBe("schedules[2]");
  });
});
