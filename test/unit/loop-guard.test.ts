import { describe, expect, it } from "vitest";
import { LoopGuard } from "../../src/outbound/loop-guard.js";

describe("LoopGuard", () => {
  it("allows sends up to the limit, then pauses that plugin in that conversation", () => {
    let now = 0;
    const guard = new LoopGuard({
      maxMessages: 3,
      windowMs: 1_000,
      pauseMs: 5_000,
      now: () => now,
    });
    for (let i = 0; i < 3; i++) expect(guard.check("echo", "t1").allowed).toBe(true);
    const fourth = guard.check("echo", "t1");
    expect(fourth).toMatchObject({ allowed: false, tripped: true, pausedUntil: 5_000 });
    expect(guard.check("echo", "t1")).toMatchObject({ allowed: false, tripped: false });
    // Other conversations and other plugins are unaffected.
    expect(guard.check("echo", "t2").allowed).toBe(true);
    expect(guard.check("ping", "t1").allowed).toBe(true);
    now = 5_000;
    expect(guard.check("echo", "t1").allowed).toBe(true);
  });

  it("counts only sends inside the sliding window", () => {
    let now = 0;
    const guard = new LoopGuard({
      maxMessages: 2,
      windowMs: 1_000,
      pauseMs: 5_000,
      now: () => now,
    });
    guard.check("p", "c");
    now = 600;
    guard.check("p", "c");
    now = 1_100;
    expect(guard.check("p", "c").allowed).toBe(true);
  });
});
