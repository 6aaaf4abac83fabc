// Human durations and times: `2h30m`, `in 10 minutes`, `next monday 9am`, read in a time zone (chrono-node for the words).
import { createRequire } from "node:module";
import type * as chronoEn from "chrono-node/en";
import { instantOf, wallTime } from "../time/zoned.js";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const YEAR = 365 * DAY;

const UNITS: Record<string, number> = {
  s: SECOND,
  sec: SECOND,
  secs: SECOND,
  second: SECOND,
  seconds: SECOND,
  m: MINUTE,
  min: MINUTE,
  mins: MINUTE,
  minute: MINUTE,
  minutes: MINUTE,
  h: HOUR,
  hr: HOUR,
  hrs: HOUR,
  hour: HOUR,
  hours: HOUR,
  d: DAY,
  day: DAY,
  days: DAY,
  w: WEEK,
  week: WEEK,
  weeks: WEEK,
  y: YEAR,
  year: YEAR,
  years: YEAR,
};

const UNIT_PATTERN = Object.keys(UNITS)
  .sort((a, b) => b.length - a.length)
  .join("|");
const DURATION_PART = new RegExp(`(\\d+(?:\\.\\d+)?|an?)\\s*(${UNIT_PATTERN})(?![a-z])`, "gy");

/**
 * Parses a duration such as `2h30m`, `90s`, `1.5 hours`, `an hour`, `1h 30m` into milliseconds.
 * Returns undefined when the text is not a duration. The result may be huge
 * (`999999999 weeks`): callers that act on it check it against {@link TIME_LIMITS}.
 *
 * @example
 * parseDuration("2h30m"); // 9_000_000
 */
export function parseDuration(text: string): number | undefined {
  const input = text
    .trim()
    .toLowerCase()
    .replace(/\s+and\s+/g, " ");
  if (input === "") return undefined;
  let total = 0;
  let pos = 0;
  while (pos < input.length) {
    while (input[pos] === " " || input[pos] === ",") pos++;
    if (pos >= input.length) break;
    DURATION_PART.lastIndex = pos;
    const match = DURATION_PART.exec(input);
    if (!match) return undefined;
    const amount = match[1] === "a" || match[1] === "an" ? 1 : Number(match[1]);
    total += amount * UNITS[match[2]!]!;
    pos = DURATION_PART.lastIndex;
  }
  return total > 0 && Number.isFinite(total) ? Math.round(total) : undefined;
}

/** Writes milliseconds the short way: `2h30m`, `45s`, `1d2h`. */
export function formatDuration(ms: number): string {
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, seconds] of [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const n = Math.floor(rest / seconds);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * seconds;
  }
  return parts.join("") || "0s";
}

/** A span in words for bound messages: `5 years`, `30 days`, else the short form (`2h30m`). */
export function describeSpan(ms: number): string {
  for (const [unit, size] of [
    ["year", YEAR],
    ["week", WEEK],
    ["day", DAY],
  ] as const)
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit}${ms === size ? "" : "s"}`;
  return formatDuration(ms);
}

/**
 * The bounds every time and duration argument has unless it sets its own: what a user means and
 * what a server can schedule. A reminder 999,999,999 weeks away or in the year 30006 is a typo.
 */
export const TIME_LIMITS = {
  /** The longest duration `arg.duration()` accepts: 5 years. */
  maxDurationMs: 5 * YEAR,
  /** How far ahead of now `arg.time()` reaches: 5 years. */
  maxAheadMs: 5 * YEAR,
  /** How far back from now `arg.time()` reaches: 5 years. */
  maxBehindMs: 5 * YEAR,
} as const;

export { isTimeZone, wallTime } from "../time/zoned.js";

/** The instant at which the clock in `zone` shows the given date and time (DST gaps move forward). */
export const fromWallTime = (
  t: { year: number; month: number; day: number; hour: number; minute: number },
  zone: string,
): number => instantOf(t, zone);

/** Hour used when a day is named without a time (`tomorrow`, `friday`, `march 5`). */
export const DEFAULT_HOUR = 9;

/** Where and when times are read: "now" and the time zone of wall-clock times. */
export interface TimeReference {
  /** Milliseconds since the epoch. */
  now: number;
  /** IANA time zone for wall times (`Europe/Paris`). */
  timeZone?: string;
}

/** The time zone of a reference: `timeZone`, else UTC. */
export function zoneOf(ref: TimeReference): string {
  return ref.timeZone ?? "UTC";
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}t.*(?:z|[+-]\d{2}:?\d{2})$/;
/** chrono tags for words that name a time of day (`tonight`, `this evening`), not only a day. */
const TIME_OF_DAY_TAG = /^casualReference\/(?!today|tomorrow|yesterday|now)/;
let casualParser: chronoEn.Chrono | undefined;

/**
 * chrono-node's English casual parser, loaded on the first time that needs words: a bot that
 * never parses one never loads it (its English locale alone is over 100 modules and about a
 * tenth of a second; the whole package with every locale is several times that). It is
 * required synchronously (chrono-node ships CommonJS too) so that `parseTime` stays sync.
 */
function chronoParser(): chronoEn.Chrono {
  casualParser ??= (
    createRequire(import.meta.url)("chrono-node/en") as typeof chronoEn
  ).casual.clone();
  return casualParser;
}

/** The UTC offset of `zone` at `ms`, in minutes, for chrono's reference. */
function offsetMinutes(ms: number, zone: string): number {
  const w = wallTime(ms, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / MINUTE);
}

/**
 * Parses a time people type into an instant: `now`, `in 10 minutes`, `in 2h30m`, `9:00`, `5pm`,
 * `tonight`, `tomorrow 9:00`, `next monday 9am`, `march 5 5pm`, `friday at 10am`,
 * `2025-03-01 14:00`, or an ISO timestamp. The words are read by chrono-node; wall times are
 * placed in `timeZone` (correct across daylight-saving changes); a day without a time means
 * 9:00; a time already past today means the next one. The whole text must be a time.
 * Returns undefined when it is not one (or names no representable instant).
 *
 * @example
 * parseTime("tomorrow 9:00", { now: Date.parse("2025-03-01T12:00:00Z"), timeZone: "Europe/Paris" });
 * // 2025-03-02T08:00:00.000Z
 */
export function parseTime(text: string, reference: TimeReference): Date | undefined {
  const input = text.trim().replace(/\s+/g, " ");
  const lower = input.toLowerCase();
  const { now } = reference;
  const zone = zoneOf(reference);
  if (lower === "") return undefined;
  if (lower === "now") return new Date(now);
  const ms = relativeDuration(lower);
  if (ms !== undefined) return instant(now + ms);
  if (ISO_INSTANT.test(lower)) return instant(Date.parse(input));

  const results = chronoParser().parse(
    input,
    { instant: new Date(now), timezone: offsetMinutes(now, zone) },
    { forwardDate: true },
  );
  const found = results[0];
  if (results.length !== 1 || !found || found.index !== 0 || found.text.length !== input.length)
    return undefined;
  const start = found.start;
  // An explicit zone or offset (`5pm EST`, `in 2 days`): chrono's instant is the answer.
  if (start.isCertain("timezoneOffset")) return instant(start.date().getTime());
  const timeOfDay =
    start.isCertain("hour") || [...found.tags()].some((tag) => TIME_OF_DAY_TAG.test(tag));
  const wall = {
    year: start.get("year")!,
    month: start.get("month")!,
    day: start.get("day")!,
    hour: timeOfDay ? start.get("hour")! : DEFAULT_HOUR,
    minute: timeOfDay ? (start.get("minute") ?? 0) : 0,
    second: timeOfDay ? (start.get("second") ?? 0) : 0,
  };
  return instant(instantOf(wall, zone));
}

/**
 * The duration of a relative time (`in 2h30m` → 9,000,000), whatever its size, or undefined
 * when the text is not `in <duration>`. Lets callers tell "too far ahead" from "not a time".
 */
export function relativeDuration(text: string): number | undefined {
  const lower = text.trim().toLowerCase();
  return lower.startsWith("in ") ? parseDuration(lower.slice(3)) : undefined;
}

/** A Date for `ms`, or undefined when `ms` is no instant a Date can hold. */
function instant(ms: number): Date | undefined {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
