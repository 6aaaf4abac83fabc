import { describe, expect, it } from "vitest";
import { arg, type ArgsShape } from "topicbot";
import { compileSpec, resolveInvocation } from "../../src/commands/command.js";
import type { ArgEnv } from "../../src/commands/types.js";
import type { Directory } from "../../src/context/directory.js";

// Saturday 1 March 2025, 12:00 UTC.
const NOW = Date.parse("2025-03-01T12:00:00Z");
const env: ArgEnv = {
  directory: {} as Directory,
  senderId: 1,
  now: NOW,
  timeZone: () => Promise.resolve("Europe/Paris"),
};

/** The value of the one argument `x`, or the usage message it was refused with. */
async function read(x: ArgsShape[string], text: string): Promise<unknown> {
  try {
    return (await resolveInvocation(compileSpec("t", { args: { x } }), text, env)).args.x;
  } catch (error) {
    return (error as Error).message;
  }
}

describe("bounded argument types: absurd input gets a usage message naming the argument and the bound", () => {
  it("durations: at most 5 years unless the spec says otherwise", async () => {
    expect(await read(arg.duration(), "2h30m")).toBe(9_000_000);
    expect(await read(arg.duration(), "999999999 weeks")).toBe(
      "<x>: `999999999 weeks` is longer than 5 years, the most I accept",
    );
    expect(await read(arg.duration({ max: "30d" }), "31 days")).toBe(
      "<x>: `31 days` is longer than 30 days, the most I accept",
    );
    expect(await read(arg.duration({ min: "1m" }), "10s")).toBe(
      "<x>: `10s` is shorter than 1m, the least I accept",
    );
    expect(await read(arg.duration(), "1e22")).toMatch(/^<x>: `1e22` is not a duration/);
  });

  it("times: within 5 years of now, in the future when asked", async () => {
    expect(await read(arg.time(), "next monday 9am")).toEqual(new Date("2025-03-03T08:00:00Z"));
    expect(await read(arg.time(), "in 999999999 weeks")).toBe(
      "<x>: `in 999999999 weeks` is more than 5 years ahead; give a time within 5 years",
    );
    expect(await read(arg.time(), "march 5, 2031")).toMatch(/is more than 5 years ahead/);
    expect(await read(arg.time(), "in 10000 days")).toMatch(/is more than 5 years ahead/);
    expect(await read(arg.time(), "30006-01-01T00:00:00Z")).toMatch(/is not a time/);
    // Not a duration, so not a time: the words are left over and the binder says so.
    expect(await read(arg.time(), "in 1e22 seconds")).toBe("unexpected `1e22`");
    expect(await read(arg.time({ maxAhead: "1y" }), "in 2 years")).toBe(
      "<x>: `in 2 years` is more than 1 year ahead; give a time within 1 year",
    );
    expect(await read(arg.time({ future: true }), "2025-02-01T00:00:00Z")).toBe(
      "<x>: `2025-02-01T00:00:00Z` is not in the future",
    );
  });

  it("integers and message IDs: whole, positive, at most 2^53 - 1", async () => {
    expect(await read(arg.integer({ min: 1, max: 10 }), "10")).toBe(10);
    expect(await read(arg.integer({ min: 1, max: 10 }), "11")).toBe(
      "<x>: `11` is more than 10, the most I accept",
    );
    expect(await read(arg.integer(), "1.5")).toBe("<x>: `1.5` is not a whole number");
    expect(await read(arg.messageId(), "1234")).toBe(1234);
    expect(
      await read(
        arg.messageId(),
        "https://chat.example.com/#narrow/channel/1-general/topic/x/near/77",
      ),
    ).toBe(77);
    expect(await read(arg.messageId(), "0")).toBe("<x>: `0` is less than 1, the least I accept");
    expect(await read(arg.messageId(), "9007199254740993")).toBe(
      "<x>: `9007199254740993` is more than 9,007,199,254,740,991, the most I accept",
    );
    expect(await read(arg.messageId(), "abc")).toBe("<x>: `abc` is not a message ID or link");
  });

  it("text: the rest of the line, bounded in length (characters, not UTF-16 units)", async () => {
    expect(await read(arg.text({ max: 5 }), "héllo")).toBe("héllo");
    expect(await read(arg.text({ max: 5 }), "😀😀😀😀😀")).toBe("😀😀😀😀😀");
    expect(await read(arg.text({ max: 1000 }), "x".repeat(1001))).toBe(
      "<x>: the text is 1,001 characters long; at most 1,000",
    );
  });

  it("numbers and choices without zod: finite numbers, words matched regardless of case", async () => {
    expect(await read(arg.number(), "-1.5")).toBe(-1.5);
    expect(await read(arg.number(), "Infinity")).toBe("<x>: `Infinity` is not a number");
    // Number() reads blank text as 0: a 0 is a number only when it was written.
    expect(await read(arg.number(), "0")).toBe(0);
    expect(await read(arg.number(), "0x1f")).toBe(31);
    for (const blank of ["", " ", "\u00a0", "\t\n"])
      expect(() => arg.number().parse(blank, env)).toThrow("is not a number");
    expect(await read(arg.choice("on", "off"), "ON")).toBe("on");
    expect(await read(arg.choice("on", "off"), "maybe")).toBe(
      "<x>: `maybe` is not one of `on`, `off`",
    );
  });
});
