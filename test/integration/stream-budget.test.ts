// Three concurrent streams and a run of replies share the per-user request budget (200 a minute,
// as the real servers' default rule) on a fake clock: none is refused and every answer is whole.
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import type { TestClock } from "../../src/testing/clock.js";
import { definePlugin } from "../../src/bot/plugin.js";
import type { StreamResult } from "../../src/context/stream.js";

const START = Date.parse("2026-06-01T12:00:00Z");
const WORDS = 300;
/** A word every 200 ms of fake time: a minute of answer. */
const WORD_MS = 200;

function plugins(clock: () => TestClock, results: StreamResult[]) {
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => void clock().setTimer(resolve, ms));
  return [
    definePlugin({
      name: "story",
      setup(bot) {
        bot.command("story", { description: "a minute of answer" }, async (ctx) => {
          async function* words(): AsyncIterable<string> {
            for (let i = 0; i < WORDS; i++) {
              await sleep(WORD_MS);
              yield `${i === 0 ? "" : " "}w${i}`;
            }
          }
          // An eager author: four edits a second if the budget allowed it.
          const result = await ctx.stream(words(), {
            minEditIntervalMs: 250,
            now: () => clock().now(),
            sleep,
          });
          results.push(result);
        });
        bot.command("ping", { description: "pong" }, (ctx) => ctx.reply("pong"));
      },
    }),
  ];
}

describe("concurrent streams within the request budget", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("three streams and ten replies over a minute stay under 200 requests a minute, none refused", async () => {
    const results: StreamResult[] = [];
    // The harness's clock, once it hands it out (the plugins and the client read it lazily).
    const ref: { clock?: TestClock } = {};
    t = await createTestBot({
      plugins: plugins(() => ref.clock!, results),
      now: START,
      sandbox: { rateLimit: { requests: 200, windowSeconds: 60 } },
      // The client paces on the same fake clock (it asks before the harness hands the clock out).
      client: { pacing: { now: () => ref.clock?.now() ?? START } },
    });
    const clock = (ref.clock = t.clock);
    const limiter = t.sandbox.rateLimiter!;
    const check = limiter.check.bind(limiter);
    const botId = t.sandbox.bot.userId;
    /** Fake-clock times of the bot's API requests, and how many were refused. */
    const times: number[] = [];
    let refused = 0;
    limiter.check = (userId, bucket = "api") => {
      if (userId !== botId || bucket !== "api") return check(userId, bucket);
      try {
        const verdict = check(userId, bucket);
        times.push(clock.now());
        return verdict;
      } catch (error) {
        refused++;
        throw error;
      }
    };
    for (const topic of ["a", "b", "c"]) await t.send("!story", { topic });
    let pings = 0;
    const deadline = Date.now() + 90_000;
    for (let step = 0; results.length < 3; step++) {
      if (Date.now() > deadline)
        throw new Error(`the streams did not end (${results.length} of 3)`);
      // A reply asked for every six seconds of the first minute.
      if (step % 60 === 30 && pings < 10) {
        await t.send("!ping", { topic: "ping" });
        pings++;
      }
      await clock.advance(100);
      await new Promise((r) => setTimeout(r, 3));
    }
    await t.settle();
    expect(refused).toBe(0);
    const pongs = t.botMessages().filter((m) => m.content === "pong");
    expect(pongs).toHaveLength(pings);
    for (const result of results) {
      expect(result.complete).toBe(true);
      expect(result.text.split(" ")).toHaveLength(WORDS);
      expect(t.realm.message(result.messageIds[0]!)!.content).toBe(result.text);
    }
    // The most requests in any minute of fake time.
    let most = 0;
    for (let i = 0, j = 0; j < times.length; j++) {
      while (times[j]! - times[i]! >= 60_000) i++;
      most = Math.max(most, j - i + 1);
    }
    expect(most).toBeLessThanOrEqual(200);
    expect(most).toBeGreaterThan(50);
  }, 150_000);
});
