import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration, parseTime } from "topicbot";
import { fromWallTime, wallTime } from "../../src/context/time.js";

// Saturday 1 March 2025, 12:00 UTC: 13:00 in Paris, 07:00 in New York.
const NOW = Date.parse("2025-03-01T12:00:00Z");
const at = (text: string, zone = "UTC") =>
  parseTime(text, { now: NOW, timeZone: zone })?.toISOString();

describe("parseDuration", () => {
  it.each([
    ["2h30m", 9_000_000],
    ["2h 30m", 9_000_000],
    ["90s", 90_000],
    ["1.5 hours", 5_400_000],
    ["10 minutes", 600_000],
    ["an hour", 3_600_000],
    ["1 day and 2 hours", 93_600_000],
    ["1w", 604_800_000],
  ])("%s is %i ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["", "soon", "10", "2x", "h", "10 minutes later"])("%j is not a duration", (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it("formats durations back the short way", () => {
    expect(formatDuration(9_000_000)).toBe("2h30m");
    expect(formatDuration(93_600_000)).toBe("1d2h");
    expect(formatDuration(0)).toBe("0s");
  });
});

describe("parseTime, with a fixed now and time zone", () => {
  it("reads relative times", () => {
    expect(at("now")).toBe("2025-03-01T12:00:00.000Z");
    expect(at("in 10 minutes")).toBe("2025-03-01T12:10:00.000Z");
    expect(at("in 2h30m")).toBe("2025-03-01T14:30:00.000Z");
  });

  it("reads wall times in the given zone", () => {
    expect(at("tomorrow 9:00", "Europe/Paris")).toBe("2025-03-02T08:00:00.000Z");
    expect(at("tomorrow at 9am", "America/New_York")).toBe("2025-03-02T14:00:00.000Z");
    expect(at("today 17:30", "Europe/Paris")).toBe("2025-03-01T16:30:00.000Z");
    expect(at("tomorrow", "UTC")).toBe("2025-03-02T09:00:00.000Z");
    expect(at("2025-03-10 14:00", "Europe/Paris")).toBe("2025-03-10T13:00:00.000Z");
    expect(at("tomorrow noon")).toBe("2025-03-02T12:00:00.000Z");
  });

  it("moves a bare clock time already past to tomorrow", () => {
    // 13:00 in Paris now: 14:00 is later today, 9:00 is tomorrow.
    expect(at("14:00", "Europe/Paris")).toBe("2025-03-01T13:00:00.000Z");
    expect(at("9:00", "Europe/Paris")).toBe("2025-03-02T08:00:00.000Z");
    expect(at("5pm", "Europe/Paris")).toBe("2025-03-01T16:00:00.000Z");
  });

  it("reads weekdays as the next such day", () => {
    // 1 March 2025 is a Saturday.
    expect(at("monday 10:00")).toBe("2025-03-03T10:00:00.000Z");
    expect(at("friday at 5pm")).toBe("2025-03-07T17:00:00.000Z");
    expect(at("saturday 9:00")).toBe("2025-03-08T09:00:00.000Z");
  });

  it("accepts ISO timestamps", () => {
    expect(at("2025-04-01T08:00:00Z")).toBe("2025-04-01T08:00:00.000Z");
  });

  it("crosses a daylight-saving change correctly", () => {
    // Paris moves to summer time on 30 March 2025: 9:00 there is 07:00 UTC from then on.
    const before = Date.parse("2025-03-29T12:00:00Z");
    expect(
      parseTime("tomorrow 9:00", { now: before, timeZone: "Europe/Paris" })?.toISOString(),
    ).toBe("2025-03-30T07:00:00.000Z");
    expect(
      wallTime(
        fromWallTime({ year: 2025, month: 3, day: 30, hour: 9, minute: 0 }, "Europe/Paris"),
        "Europe/Paris",
      ),
    ).toMatchObject({ hour: 9, minute: 0 });
  });

  it.each(["", "later", "tomorrow 25:00", "13:75", "in soon", "someday 9:00", "13pm"])(
    "%j is not a time",
    (text) => {
      expect(at(text)).toBeUndefined();
    },
  );
});

describe("parseTime, natural language through chrono-node, with fixed clocks in several zones", () => {
  // Saturday 1 March 2025, 12:00 UTC: 13:00 in Paris, 07:00 in New York, 21:00 in Tokyo.
  const cases: [text: string, zone: string, expected: string][] = [
    ["next monday 9am", "Europe/Paris", "2025-03-03T08:00:00.000Z"],
    ["next monday 9am", "America/New_York", "2025-03-03T14:00:00.000Z"],
    ["next monday 9am", "Asia/Tokyo", "2025-03-03T00:00:00.000Z"],
    ["march 5 5pm", "Europe/Paris", "2025-03-05T16:00:00.000Z"],
    ["march 5 5pm", "America/New_York", "2025-03-05T22:00:00.000Z"],
    ["tonight", "Europe/Paris", "2025-03-01T21:00:00.000Z"],
    ["tonight", "America/New_York", "2025-03-02T03:00:00.000Z"],
    ["in 2 hours", "Asia/Tokyo", "2025-03-01T14:00:00.000Z"],
    ["tomorrow 9:00", "Asia/Tokyo", "2025-03-02T00:00:00.000Z"],
    ["tomorrow 9:00", "America/New_York", "2025-03-02T14:00:00.000Z"],
    // A day without a time means 9:00 there.
    ["march 5", "Europe/Paris", "2025-03-05T08:00:00.000Z"],
    ["friday", "UTC", "2025-03-07T09:00:00.000Z"],
  ];
  it.each(cases)("%j in %s", (text, zone, expected) => {
    expect(at(text, zone)).toBe(expected);
  });

  it("reads US daylight saving correctly: 9am after the change is 13:00 UTC, before it 14:00", () => {
    // New York springs forward on Sunday 9 March 2025.
    const friday = Date.parse("2025-03-07T17:00:00Z");
    const read = (text: string) =>
      parseTime(text, { now: friday, timeZone: "America/New_York" })?.toISOString();
    expect(read("tomorrow 9am")).toBe("2025-03-08T14:00:00.000Z");
    expect(read("next monday 9am")).toBe("2025-03-10T13:00:00.000Z");
    // 2:30 does not exist on 9 March in New York: the clock jumps to 3:30.
    expect(read("march 9 2:30am")).toBe("2025-03-09T07:30:00.000Z");
  });

  it("still reads the old option spelling `zone`", () => {
    expect(parseTime("tomorrow 9:00", { now: NOW, timeZone: "Europe/Paris" })?.toISOString()).toBe(
      "2025-03-02T08:00:00.000Z",
    );
  });

  it("never returns an Invalid Date: far beyond what a Date holds is no time", () => {
    expect(parseTime("in 999999999999 weeks", { now: NOW })).toBeUndefined();
    expect(parseTime("in 1e22 seconds", { now: NOW })).toBeUndefined();
    expect(parseDuration(`${"9".repeat(400)} weeks`)).toBeUndefined();
  });

  it.each(["call mom", "tomorrow and then", "9:00 call mom"])(
    "%j is not a time as a whole",
    (t) => {
      expect(at(t)).toBeUndefined();
    },
  );
});
