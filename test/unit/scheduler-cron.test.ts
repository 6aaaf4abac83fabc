import { afterEach, describe, expect, it, vi } from "vitest";
import { createTask } from "node-cron";
import { compileCron, CronExpressionError } from "../../src/scheduler/cron.js";
import { instantOf } from "../../src/time/zoned.js";

const iso = (d: Date | undefined) => d?.toISOString();

describe("compileCron", () => {
  it("names the job and the expression when a field is out of range", () => {
    expect(() => compileCron("61 * * * *", { job: "standup" })).toThrow(CronExpressionError);
    expect(() => compileCron("61 * * * *", { job: "standup" })).toThrow(
      /cron job "standup": invalid cron expression "61 \* \* \* \*": minute: 61/,
    );
  });

  it("says how many fields it expected", () => {
    expect(() => compileCron("* * *")).toThrow(/expected 5 or 6 fields but got 3/);
  });

  it("rejects an unknown time zone, naming it", () => {
    expect(() => compileCron("0 9 * * *", { timezone: "Mars/Olympus", job: "j" })).toThrow(
      /cron job "j": .*unknown time zone "Mars\/Olympus"/,
    );
  });

  it("finds the next weekday 09:00 in a time zone", () => {
    const cron = compileCron("0 9 * * 1-5", { timezone: "Europe/Paris" });
    // Friday 2025-01-10 10:00 Paris → Monday 2025-01-13 09:00 Paris (08:00 UTC)
    expect(iso(cron.next(Date.parse("2025-01-10T09:00:00Z")))).toBe("2025-01-13T08:00:00.000Z");
    // Summer time: 09:00 Paris is 07:00 UTC
    expect(iso(cron.next(Date.parse("2025-07-01T00:00:00Z")))).toBe("2025-07-01T07:00:00.000Z");
  });

  it("is strictly after the given instant, to the second", () => {
    const cron = compileCron("*/15 * * * * *", { timezone: "UTC" });
    expect(iso(cron.next(Date.parse("2025-03-01T00:00:15Z")))).toBe("2025-03-01T00:00:30.000Z");
    expect(iso(cron.next(Date.parse("2025-03-01T00:00:15.999Z")))).toBe("2025-03-01T00:00:30.000Z");
  });

  it("handles leap days, last days of month and nth weekdays", () => {
    const utc = { timezone: "UTC" };
    expect(iso(compileCron("0 0 29 2 *", utc).next(Date.parse("2025-03-01T00:00:00Z")))).toBe(
      "2028-02-29T00:00:00.000Z",
    );
    expect(iso(compileCron("0 18 L * *", utc).next(Date.parse("2025-02-03T00:00:00Z")))).toBe(
      "2025-02-28T18:00:00.000Z",
    );
    // second Tuesday of the month
    expect(iso(compileCron("0 10 * * 2#2", utc).next(Date.parse("2025-04-09T00:00:00Z")))).toBe(
      "2025-05-13T10:00:00.000Z",
    );
  });

  it("skips a wall-clock time that a DST jump removes, and fires once when one repeats", () => {
    const paris = compileCron("30 2 * * *", { timezone: "Europe/Paris" });
    // 2025-03-30 02:30 does not exist in Paris; the next 02:30 is on the 31st (00:30 UTC, summer)
    expect(iso(paris.next(Date.parse("2025-03-29T02:00:00Z")))).toBe("2025-03-31T00:30:00.000Z");
    // 2025-10-26 02:30 happens twice; the first (00:30 UTC, summer time) is taken
    expect(iso(paris.next(Date.parse("2025-10-25T12:00:00Z")))).toBe("2025-10-26T00:30:00.000Z");
    expect(iso(paris.next(Date.parse("2025-10-26T00:30:00Z")))).toBe("2025-10-27T01:30:00.000Z");
  });

  it("rejects a day that no month has, naming the field", () => {
    expect(() => compileCron("0 0 31 2 *")).toThrow(/dayOfMonth: .*impossible day of month/);
  });

  it("returns undefined when nothing fires within eight years", () => {
    // 29 February on a Monday: next in 2044
    const cron = compileCron("0 0 29 2 1", { timezone: "UTC" });
    expect(cron.next(Date.parse("2025-01-01T00:00:00Z"))).toBeUndefined();
    expect(iso(cron.next(Date.parse("2040-01-01T00:00:00Z")))).toBe("2044-02-29T00:00:00.000Z");
  });

  it("converts wall-clock times to instants in both directions of DST", () => {
    const at = (h: number, day: number, month: number) =>
      new Date(
        instantOf({ year: 2025, month, day, hour: h, minute: 0, second: 0 }, "America/New_York"),
      ).toISOString();
    expect(at(12, 15, 1)).toBe("2025-01-15T17:00:00.000Z");
    expect(at(12, 15, 7)).toBe("2025-07-15T16:00:00.000Z");
  });
});

describe("compileCron agrees with node-cron's own next runs", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const cases: [string, string | undefined][] = [
    ["* * * * *", "UTC"],
    ["*/7 * * * *", "Asia/Kolkata"],
    ["0 9 * * 1-5", "Europe/Paris"],
    ["15 14 1 * *", "America/New_York"],
    ["0 0 * * 0", "Australia/Sydney"],
    ["5 4 * * sun", "UTC"],
    ["0 22 * * 1-5", "Pacific/Auckland"],
    ["*/20 9-17 * jan,jul *", "UTC"],
    ["0 12 L * *", "Asia/Tokyo"],
    ["10,40 */3 * * *", undefined],
  ];

  it.each(cases)("%s in %s", (expression, timezone) => {
    const from = Date.parse("2025-06-27T13:37:42Z");
    vi.useFakeTimers({ toFake: ["Date"], now: from });
    const theirs = createTask(expression, () => undefined, { timezone })
      .getNextRuns(6)
      .map((d) => d.toISOString());
    const cron = compileCron(expression, { timezone });
    const ours: string[] = [];
    let at: number = from;
    for (let i = 0; i < 6; i++) {
      const next = cron.next(at)!;
      expect(cron.matches(next)).toBe(true);
      ours.push(next.toISOString());
      at = next.getTime();
    }
    expect(ours).toEqual(theirs);
  });
});
