// The per-user command limit counts commands by when they were sent, so catch-up after a restart is not a flood.
import { describe, expect, it } from "vitest";
import { CommandRateLimiter } from "topicbot";

describe("CommandRateLimiter by send time", () => {
  it("15 commands sent 1.5 s apart while the bot was down, handled at once, all run (old code: 5 dropped)", () => {
    const limiter = new CommandRateLimiter({ commands: 10, perSeconds: 10 }, () => 1_000_000);
    const decisions = Array.from({ length: 15 }, (_, i) => limiter.check(7, 900_000 + i * 1_500));
    expect(decisions.filter((d) => !d.allowed)).toEqual([]);
  });

  it("a live flood is still limited: 11 commands in one second, the 11th dropped with one notice", () => {
    const limiter = new CommandRateLimiter({ commands: 10, perSeconds: 10 }, () => 0);
    for (let i = 0; i < 10; i++) expect(limiter.check(7, 5_000).allowed).toBe(true);
    expect(limiter.check(7, 5_000)).toEqual({ allowed: false, notify: true, retryInMs: 10_000 });
    expect(limiter.check(7, 6_000)).toEqual({ allowed: false, notify: false, retryInMs: 9_000 });
    expect(limiter.check(7, 15_000).allowed).toBe(true);
  });

  it("counts commands handed over out of order by the time each was sent", () => {
    const limiter = new CommandRateLimiter({ commands: 2, perSeconds: 10 });
    expect(limiter.check(1, 30_000).allowed).toBe(true);
    expect(limiter.check(1, 21_000).allowed).toBe(true);
    expect(limiter.check(1, 22_000).allowed).toBe(true);
    expect(limiter.check(1, 23_000).allowed).toBe(false);
    expect(limiter.check(1, 31_000).allowed).toBe(false);
    expect(limiter.check(1, 32_500).allowed).toBe(true);
  });
});
