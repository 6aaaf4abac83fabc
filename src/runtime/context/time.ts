// Human durations and times: `2h30m`, `in 10 minutes`, `tomorrow 9:00`, in a time zone, with Intl only.
import { instantOf, wallTime } from "../../time/zoned.js";

const UNITS: Record<string, number> = {
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

const UNIT_PATTERN = Object.keys(UNITS)
  .sort((a, b) => b.length - a.length)
  .join("|");
const DURATION_PART = new RegExp(`(\\d+(?:\\.\\d+)?|an?)\\s*(${UNIT_PATTERN})(?![a-z])`, "gy");

/**
 * Parses a duration such as `2h30m`, `90s`, `1.5 hours`, `an hour`, `1h 30m` into milliseconds.
 * Returns undefined when the text is not a duration.
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
  DURATION_PART.lastIndex = 0;
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
  return total > 0 ? Math.round(total) : undefined;
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

export { isTimeZone, wallTime } from "../../time/zoned.js";

/** The instant at which the clock in `zone` shows the given date and time (DST gaps move forward). */
export const fromWallTime = (
  t: { year: number; month: number; day: number; hour: number; minute: number },
  zone: string,
): number => instantOf(t, zone);

/** `9`, `9:30`, `21:15`, `9am`, `9:30pm`, `noon`, `midnight` as hours and minutes. */
function parseClock(text: string): { hour: number; minute: number } | undefined {
  if (text === "noon") return { hour: 12, minute: 0 };
  if (text === "midnight") return { hour: 0, minute: 0 };
  const match = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(text);
  if (!match) return undefined;
  let hour = Number(match[1]);
  const minute = match[2] === undefined ? 0 : Number(match[2]);
  const meridiem = match[3];
  if (minute > 59) return undefined;
  if (meridiem) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (meridiem === "pm" ? 12 : 0);
  } else if (hour > 23) return undefined;
  return { hour, minute };
}

const DAY_NAMES: Record<string, number> = {
  sunday: 0,
  sun: 0,
  monday: 1,
  mon: 1,
  tuesday: 2,
  tue: 2,
  tues: 2,
  wednesday: 3,
  wed: 3,
  thursday: 4,
  thu: 4,
  thurs: 4,
  friday: 5,
  fri: 5,
  saturday: 6,
  sat: 6,
};

/** Hour used when a day is named without a time (`tomorrow`, `friday`). */
export const DEFAULT_HOUR = 9;

/** Adds `days` calendar days to a date, through UTC arithmetic (no time zone involved). */
function addDays(
  d: { year: number; month: number; day: number },
  days: number,
): { year: number; month: number; day: number } {
  const date = new Date(Date.UTC(d.year, d.month - 1, d.day + days));
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/**
 * Parses a human time into an instant: `now`, `in 10 minutes`, `in 2h30m`, `9:00`, `5pm`,
 * `today 17:30`, `tomorrow 9:00`, `tomorrow`, `friday at 10am`, `2025-03-01 14:00`, or an ISO
 * timestamp. Wall times are read in `zone`; a bare clock time already past means tomorrow.
 * Returns undefined when the text is not a time.
 *
 * @example
 * parseTime("tomorrow 9:00", { now: Date.parse("2025-03-01T12:00:00Z"), zone: "Europe/Paris" });
 * // 2025-03-02T08:00:00.000Z
 */
export function parseTime(text: string, options: { now: number; zone: string }): Date | undefined {
  const input = text.trim().toLowerCase().replace(/\s+/g, " ").replace(/^at /, "");
  const { now, zone } = options;
  if (input === "") return undefined;
  if (input === "now") return new Date(now);
  if (input.startsWith("in ")) {
    const ms = parseDuration(input.slice(3));
    return ms === undefined ? undefined : new Date(now + ms);
  }
  if (/^\d{4}-\d{2}-\d{2}t/.test(input) || /(z|[+-]\d{2}:\d{2})$/.test(input)) {
    const ms = Date.parse(text.trim());
    return Number.isNaN(ms) ? undefined : new Date(ms);
  }

  const today = wallTime(now, zone);
  const match = /^(?:(today|tomorrow|[a-z]+|\d{4}-\d{2}-\d{2})(?:\s+|$))?(?:at\s+)?(.*)$/.exec(
    input,
  );
  if (!match) return undefined;
  const [, dayWord, clockText] = match;
  let clock = clockText ? parseClock(clockText) : undefined;
  if (clockText && !clock) return undefined;

  let date: { year: number; month: number; day: number };
  let explicitDay = true;
  if (dayWord === undefined) {
    if (!clock) return undefined;
    date = today;
    explicitDay = false;
  } else if (dayWord === "today") date = today;
  else if (dayWord === "tomorrow") date = addDays(today, 1);
  else if (/^\d{4}-\d{2}-\d{2}$/.test(dayWord)) {
    const [y, m, d] = dayWord.split("-").map(Number) as [number, number, number];
    if (m < 1 || m > 12 || d < 1 || d > 31) return undefined;
    date = { year: y, month: m, day: d };
  } else if (dayWord in DAY_NAMES) {
    const ahead = (DAY_NAMES[dayWord]! - today.weekday + 7) % 7;
    date = addDays(today, ahead);
    clock ??= { hour: DEFAULT_HOUR, minute: 0 };
    if (ahead === 0 && fromWallTime({ ...date, ...clock }, zone) <= now) date = addDays(date, 7);
  } else {
    // Not a day word: maybe the whole input is a clock time (`9am`).
    clock = parseClock(input);
    if (!clock) return undefined;
    date = today;
    explicitDay = false;
  }
  clock ??= { hour: DEFAULT_HOUR, minute: 0 };
  let at = fromWallTime({ ...date, ...clock }, zone);
  if (!explicitDay && at <= now) at = fromWallTime({ ...addDays(date, 1), ...clock }, zone);
  return new Date(at);
}
