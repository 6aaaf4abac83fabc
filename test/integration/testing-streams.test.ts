// The harness sees streamed answers whole: t.dialog, t.reply and t.botMessages show the final
// text (the edits on the side), and the bot's own edits do not wake its event poll once each.
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import { definePlugin } from "../../src/bot/plugin.js";

const tell = definePlugin({
  name: "tell",
  setup(bot) {
    bot.command("tell", { description: "streams n words" }, async (ctx) => {
      const n = Number(ctx.command.text.trim() || "3");
      async function* words(): AsyncIterable<string> {
        for (let i = 1; i <= n; i++) {
          await new Promise((r) => setTimeout(r, 50));
          yield `${i === 1 ? "" : " "}w${i}`;
        }
      }
      await ctx.stream(words(), { minEditIntervalMs: 0 });
    });
  },
});

/** Streams "working", then "done" once the test calls `finish`, acknowledging with :eyes:. */
function acking(control: { finish?: () => void }) {
  return definePlugin({
    name: "ack",
    setup(bot) {
      bot.command("work", { description: "a long job" }, async (ctx) => {
        const finished = new Promise<void>((resolve) => (control.finish = resolve));
        async function* text(): AsyncIterable<string> {
          yield "working";
          await finished;
          yield " done";
        }
        await ctx.stream(text(), { minEditIntervalMs: 0, ack: "eyes" });
      });
    },
  });
}

describe("the harness and streamed answers", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("t.dialog expects a streamed answer's final text", async () => {
    t = await createTestBot({ plugins: [tell] });
    await t.dialog([["!tell 3", "w1 w2 w3"]], { timeoutMs: 10_000 });
    const [answer] = t.botMessages();
    expect(answer!.content).toBe("w1 w2 w3");
    // What it showed before, oldest first.
    expect(answer!.edits?.[0]).toBe("w1");
    expect(answer!.edits?.at(-1)).not.toBe("w1 w2 w3");
  }, 30_000);

  it("t.reply waits for the stream to end", async () => {
    t = await createTestBot({ plugins: [tell] });
    await t.send("!tell 5");
    const reply = await t.reply({ timeoutMs: 10_000 });
    expect(reply.content).toBe("w1 w2 w3 w4 w5");
    await t.expectNoReply();
  }, 30_000);

  it("an acknowledgement reaction shows while the answer is written", async () => {
    const control: { finish?: () => void } = {};
    t = await createTestBot({ plugins: [acking(control)] });
    const asked = await t.send("!work");
    const deadline = Date.now() + 10_000;
    while (t.reactions(asked).length === 0 || !control.finish) {
      if (Date.now() > deadline) throw new Error("no acknowledgement");
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(t.reactions(asked)).toEqual([
      { emoji: "eyes", userId: t.sandbox.bot.userId, userName: "Topic Bot" },
    ]);
    control.finish!();
    expect((await t.reply({ timeoutMs: 10_000 })).content).toBe("working done");
    await t.settle();
    expect(t.reactions(asked)).toEqual([]);
  }, 30_000);

  it("the bot's own edits do not wake its poll once each", async () => {
    t = await createTestBot({
      plugins: [tell],
      sandbox: { rateLimit: { requests: 10_000, windowSeconds: 60 } },
    });
    const limiter = t.sandbox.rateLimiter!;
    const check = limiter.check.bind(limiter);
    let polls = 0;
    limiter.check = (userId, bucket = "api") => {
      if (userId === t!.sandbox.bot.userId && bucket === "events") polls++;
      return check(userId, bucket);
    };
    // A first answer lets the bot learn its own ID from its own message.
    await t.dialog([["!tell 1", "w1"]], { timeoutMs: 10_000 });
    polls = 0;
    await t.dialog([["!tell 12", "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12"]], {
      timeoutMs: 20_000,
    });
    const answer = t.botMessages().at(-1)!;
    const edits = answer.edits?.length ?? 0;
    expect(edits).toBeGreaterThanOrEqual(3);
    // Once each would be the message, the post, each edit and the typing notices.
    expect(polls).toBeLessThan(edits + 2);
    expect(polls).toBeLessThanOrEqual(6);
  }, 60_000);
});
