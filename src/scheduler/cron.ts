// Cron expressions: validation with named culprits and next fire times from any instant, in any time zone.
import { createRequire } from "node:module";
import type * as NodeCronModule from "node-cron";
import type { ParsedFields } from "node-cron";
import { instantOf, isTimeZone, wallTime, type WallTime } from "../time/zoned.js";

type NodeCron = typeof NodeCronModule;
let nodeCronModule: NodeCron | undefined;

/**
 * node-cron, loaded on first use: a bot with no schedule and no cron job (the common `bot start`)
 * never loads it and its 70 KB. It ships CommonJS beside ESM, so `require` loads it synchronously
 * and `compileCron` stays sync (errors in a config or a `ctx.cron` call are thrown where they are).
 */
function nodeCron(): NodeCron {
  nodeCronModule ??= createRequire(import.meta.url)("node-cron") as NodeCron;
  return nodeCronModule;
}

/** A cron expression or time zone that cannot be used; the message names the job and the culprit. */
export class CronExpressionError extends Error {
  override readonly name = "CronExpressionError";
  readonly expression: string;
  readonly job: string | undefined;

  constructor(expression: string, problem: string, job?: string) {
    super(`${job ? `cron job "${job}": ` : ""}invalid cron expression "${expression}": ${problem}`);
    this.expression = expression;
    this.job = job;
  }
}

/** A compiled expression: node-cron's own matcher decides, this module only walks candidates. */
export interface CronSchedule {
  readonly expression: string;
  readonly timezone: string | undefined;
  /** Whether `date` (to the second) is a fire time. */
  matches(date: Date): boolean;
  /** The first fire time strictly after `after`, or undefined if none within eight years. */
  next(after: Date | number): Date | undefined;
}

/** How far `next` looks ahead: eight years covers every leap-day schedule. */
const MAX_DAYS = 366 * 8;

type LocalParts = Omit<WallTime, "weekday">;

/** Throws CronExpressionError unless the time zone is one Intl knows. */
export function checkTimezone(expression: string, timezone: string, job?: string): void {
  if (!isTimeZone(timezone)) {
    throw new CronExpressionError(
      expression,
      `unknown time zone "${timezone}" (use an IANA name such as Europe/Paris or UTC)`,
      job,
    );
  }
}

/** Rebuilds the day part of an expression at noon, so day matching can run in UTC on plain dates. */
function dayPattern(fields: ParsedFields): string {
  return `0 0 12 ${fields.dayOfMonth.join(",")} ${fields.month.join(",")} ${fields.dayOfWeek.join(",")}`;
}

/**
 * Validates and compiles a cron expression (5 fields, or 6 with seconds first; node-cron syntax).
 *
 * @example
 * const every = compileCron("0 9 * * 1-5", { timezone: "Europe/Paris" });
 * every.next(Date.now()); // the next weekday 09:00 in Paris
 */
export function compileCron(
  expression: string,
  options: { timezone?: string; job?: string } = {},
): CronSchedule {
  const { timezone, job } = options;
  const { createTask, parse, validateDetailed } = nodeCron();
  const checked = validateDetailed(expression);
  if (!checked.valid) {
    const problem = checked.errors
      .map((e) => (e.field === "expression" ? e.message : `${e.field}: ${e.message}`))
      .join("; ");
    throw new CronExpressionError(expression, problem || "not a cron expression", job);
  }
  if (timezone !== undefined) checkTimezone(expression, timezone, job);
  const fields = parse(expression);
  const noop = (): void => undefined;
  const matcher = createTask(expression, noop, { timezone });
  const days = createTask(dayPattern(fields), noop, { timezone: "UTC" });
  const sorted = (values: number[]): number[] => [...values].sort((a, b) => a - b);
  const hours = sorted(fields.hour);
  const minutes = sorted(fields.minute);
  const seconds = sorted(fields.second);

  const matches = (date: Date): boolean => matcher.match(date);

  function firstOnDay(y: number, m: number, d: number, afterMs: number, from?: LocalParts) {
    const bound = from ? from.hour * 3600 + from.minute * 60 + from.second : -1;
    for (const hour of hours) {
      if (from && hour < from.hour) continue;
      for (const minute of minutes) {
        for (const second of seconds) {
          if (hour * 3600 + minute * 60 + second <= bound) continue;
          const ms = instantOf({ year: y, month: m, day: d, hour, minute, second }, timezone);
          if (ms > afterMs && matcher.match(new Date(ms))) return ms;
        }
      }
    }
    return undefined;
  }

  function next(after: Date | number): Date | undefined {
    const afterMs = Math.floor((typeof after === "number" ? after : after.getTime()) / 1000) * 1000;
    const start = wallTime(afterMs, timezone);
    const cursor = new Date(Date.UTC(start.year, start.month - 1, start.day, 12));
    for (let i = 0; i < MAX_DAYS; i++) {
      if (days.match(cursor)) {
        const [y, m, d] = [cursor.getUTCFullYear(), cursor.getUTCMonth() + 1, cursor.getUTCDate()];
        const found = firstOnDay(y, m, d, afterMs, i === 0 ? start : undefined);
        if (found !== undefined) return new Date(found);
      }
      cursor.setUTCDate(cursor.getUTCDate() + 1);
    }
    return undefined;
  }

  return { expression, timezone, matches, next };
}
