// Wall-clock time in IANA time zones with Intl only: the fields an instant shows, and back again.

/** What a clock in some zone shows at an instant. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday. */
  weekday: number;
}

const DAY_MS = 86_400_000;
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string | undefined): Intl.DateTimeFormat {
  const key = zone ?? "";
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      weekday: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(key, found);
  }
  return found;
}

/** Whether Intl knows `zone` as a time zone. */
let processZone: string | undefined;

/**
 * The process's own time zone (`TZ`, else the system's), asked of Intl on first use and kept.
 * Lazy on purpose: the first `Intl.DateTimeFormat` loads ICU's time zone data (25–40 ms of CPU),
 * which a bot that never reads a time should not pay at start.
 */
export function processTimeZone(): string {
  return (processZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone);
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The wall-clock fields at instant `ms` in `zone` (the process's zone when undefined).
 *
 * @example
 * wallTime(Date.UTC(2025, 0, 1, 12), "Europe/Paris").hour; // 13
 */
export function wallTime(ms: number, zone?: string): WallTime {
  const parts: Record<string, string> = {};
  for (const part of formatter(zone).formatToParts(new Date(ms))) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday!.toLowerCase().slice(0, 3)),
  };
}

/** The zone's UTC offset at an instant, in milliseconds. */
function offsetAt(ms: number, zone: string | undefined): number {
  const w = wallTime(ms, zone);
  return (
    Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000
  );
}

/**
 * The instant at which the clock in `zone` shows the given fields: the earlier one when a
 * daylight-saving fall-back repeats it, the one after the gap when a spring-forward skips it.
 */
export function instantOf(
  t: { year: number; month: number; day: number; hour: number; minute: number; second?: number },
  zone?: string,
): number {
  const second = t.second ?? 0;
  const wall = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, second);
  const before = wall - offsetAt(wall - DAY_MS, zone);
  const after = wall - offsetAt(wall + DAY_MS, zone);
  for (const candidate of before <= after ? [before, after] : [after, before]) {
    const q = wallTime(candidate, zone);
    if (q.day === t.day && q.hour === t.hour && q.minute === t.minute && q.second === second)
      return candidate;
  }
  return before;
}
