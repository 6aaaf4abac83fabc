import { afterEach, describe, expect, it, vi } from "vitest";
import { definePlugin, parseTime } from "topicbot";
import { createTestBot } from "topicbot/testing";
import { loadConfig } from "../../src/config/load.js";
import { schedulesConfig, scheduleJob } from "../../src/scheduler/config.js";

/** The deprecation warnings emitted while `run` runs. */
async function warningsOf(run: () => unknown): Promise<string[]> {
  const spy = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
  try {
    await run();
    return spy.mock.calls.map((c) => String(c[0]));
  } finally {
    spy.mockRestore();
  }
}

describe("one spelling for the time zone option: timeZone (timezone still read, with a warning)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("bot.config.yaml: timeZone, and timezone read into it with a warning naming the file", async () => {
    expect(loadConfig("timeZone: Europe/Paris\n", {}, "a.yaml").timeZone).toBe("Europe/Paris");
    let timeZone: string | undefined;
    const warnings = await warningsOf(() => {
      timeZone = loadConfig("timezone: Asia/Tokyo\n", {}, "b.yaml").timeZone;
    });
    expect(timeZone).toBe("Asia/Tokyo");
    expect(warnings).toEqual([
      "b.yaml: timezone: the option `timezone` is deprecated; spell it `timeZone`",
    ]);
    expect(() => loadConfig("timeZone: Moon/Base\n", {}, "c.yaml")).toThrow(
      /c\.yaml:\d+:\d+: timeZone: unknown time zone "Moon\/Base"/,
    );
  });

  it("schedules[]: timeZone, and timezone with a warning", async () => {
    const entry = { cron: "0 9 * * *", channel: "general", topic: "t", message: "m" };
    const [fresh, old] = schedulesConfig.parse([
      { ...entry, timeZone: "Europe/Paris" },
      { ...entry, timezone: "Europe/Paris" },
    ]);
    expect(scheduleJob(fresh!, async () => {}, 0).options.timezone).toBe("Europe/Paris");
    const warnings = await warningsOf(() => scheduleJob(old!, async () => {}, 1));
    expect(warnings).toEqual([expect.stringContaining("schedules[1]: timezone")]);
  });

  it("parseTime: timeZone, and zone with a warning", async () => {
    const now = Date.parse("2025-03-01T12:00:00Z");
    const at = parseTime("tomorrow 9:00", { now, timeZone: "Europe/Paris" });
    let old: Date | undefined;
    const warnings = await warningsOf(() => {
      old = parseTime("tomorrow 9:00", { now, zone: "Europe/Paris" });
    });
    expect(old).toEqual(at);
    expect(warnings).toEqual([expect.stringContaining("parseTime: zone")]);
  });

  it("createTestBot/createBot and bot.cron: timeZone, and timezone with a warning", async () => {
    const names: string[] = [];
    const plugin = definePlugin({
      name: "zones",
      setup(bot) {
        names.push(bot.cron("0 9 * * *", () => undefined, { name: "new", timeZone: "UTC" }).name);
        names.push(bot.cron("0 9 * * *", () => undefined, { name: "old", timezone: "UTC" }).name);
      },
    });
    const warnings = await warningsOf(async () => {
      const t = await createTestBot({ plugins: [plugin], config: { timezone: "Asia/Tokyo" } });
      await t.close();
    });
    expect(names).toEqual(["new", "old"]);
    expect(warnings).toEqual([
      expect.stringContaining("createBot: the option `timezone` is deprecated"),
      expect.stringContaining("bot.cron: the option `timezone` is deprecated"),
    ]);
  });
});

describe("the process's time zone is resolved on first use, not at createBot", () => {
  afterEach(() => vi.restoreAllMocks());

  it("createBot without a timeZone does not ask Intl (ICU's zone data costs 25–40 ms at start); a configured one is checked at once", async () => {
    const { createBot } = await import("../../src/bot/bot.js");
    const { createClient } = await import("../../src/client/client.js");
    const { processTimeZone } = await import("../../src/time/zoned.js");
    const client = createClient({ site: "http://127.0.0.1:9", email: "b@x.test", apiKey: "k" });
    const spy = vi.spyOn(Intl, "DateTimeFormat");
    createBot({ client });
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    expect(() => createBot({ client, timeZone: "Moon/Base" })).toThrow(
      'timeZone: unknown time zone "Moon/Base"',
    );
    expect(processTimeZone()).toBe(new Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
