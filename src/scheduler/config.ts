// Config-declared schedules: the `schedules:` schema, and entries turned into jobs that post a message.
import { z } from "zod";
import type { SendFn } from "../webhooks/config.js";
import { compileTemplate, TemplateError } from "../webhooks/template.js";
import { compileCron, CronExpressionError } from "./cron.js";
import { wallTime } from "../time/zoned.js";
import type { CronJob, ScheduleOptions } from "./scheduler.js";

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** One entry of `schedules:`. */
export const scheduleEntryConfig = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .optional()
      .describe("Shown in logs and metrics; default `schedules[<index>]`. Unique."),
    cron: z
      .string()
      .min(1)
      .describe(
        "Cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first.",
      ),
    timeZone: z
      .string()
      .min(1)
      .optional()
      .describe(
        "IANA time zone the expression is read in, e.g. `Europe/Paris`; default the machine's.",
      ),
    channel: z
      .union([z.string().min(1), z.number().int()])
      .describe("Channel name or ID to post in."),
    topic: z.string().min(1).describe("Topic; a template like the message."),
    message: z
      .string()
      .min(1)
      .describe(
        "Message content: `{{ name }}`, `{{ date }}`, `{{ time }}`, `{{ weekday }}` (in the schedule's zone), `{{ iso }}` (UTC).",
      ),
  })
  .superRefine((entry, ctx) => {
    try {
      compileCron(entry.cron, { timezone: entry.timeZone });
    } catch (error) {
      if (!(error instanceof CronExpressionError)) throw error;
      const onZone = error.message.includes("time zone");
      ctx.addIssue({
        code: "custom",
        path: [onZone ? "timeZone" : "cron"],
        message: error.message,
      });
    }
    for (const key of ["topic", "message"] as const) {
      try {
        compileTemplate(entry[key], "template");
      } catch (error) {
        if (!(error instanceof TemplateError)) throw error;
        ctx.addIssue({ code: "custom", path: [key], message: error.message });
      }
    }
  });
export type ScheduleEntry = z.output<typeof scheduleEntryConfig>;

/** The `schedules:` section: entries with distinct names. */
export const schedulesConfig = z
  .array(scheduleEntryConfig)
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((entry, i) => {
      if (entry.name === undefined) return;
      if (seen.has(entry.name))
        ctx.addIssue({ code: "custom", path: [i, "name"], message: `${entry.name} is used twice` });
      seen.add(entry.name);
    });
  })
  .describe("Cron jobs that post a message (see docs/notifiers.md).");

/** The values a schedule's templates can use, for one fire time. */
export function scheduleVars(name: string, at: Date, timezone?: string): Record<string, string> {
  const p = wallTime(at.getTime(), timezone);
  const pad = (n: number) => String(n).padStart(2, "0");
  const weekday = new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay();
  return {
    name,
    date: `${p.year}-${pad(p.month)}-${pad(p.day)}`,
    time: `${pad(p.hour)}:${pad(p.minute)}`,
    weekday: WEEKDAYS[weekday]!,
    iso: at.toISOString(),
  };
}

/** What `scheduler.schedule` takes, built from a config entry. */
export interface ConfigJob {
  expression: string;
  job: CronJob;
  options: ScheduleOptions & { name: string };
}

/**
 * Turns a config entry into a job that posts its message on each fire time.
 *
 * @example
 * config.schedules.forEach((entry, i) => {
 *   const { expression, job, options } = scheduleJob(entry, send, i);
 *   scheduler.schedule(expression, job, options);
 * });
 */
export function scheduleJob(entry: ScheduleEntry, send: SendFn, index = 0): ConfigJob {
  const name = entry.name ?? `schedules[${index}]`;
  const topic = compileTemplate(entry.topic, `schedule ${name} (topic)`);
  const message = compileTemplate(entry.message, `schedule ${name}`);
  const timezone = entry.timeZone;
  return {
    expression: entry.cron,
    options: { name, timezone },
    async job({ scheduledAt }) {
      const vars = scheduleVars(name, scheduledAt, timezone);
      await send({ to: entry.channel, topic: topic.render(vars), content: message.render(vars) });
    },
  };
}
