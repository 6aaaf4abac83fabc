import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { definePlugin } from "topicbot";
import { captureLog } from "../helpers/log.js";
import { post, until } from "../helpers/reliability.js";

const fast = {
  respondTo: "all" as const,
  eventLoop: { backoff: { baseMs: 5, capMs: 20 } },
  sendRetry: { baseMs: 5, capMs: 20 },
};

describe("replies under faults: nothing dropped, nothing doubled; a flooding plugin is paused", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("gets every reply out once through a 500, a dropped connection and RATE_LIMIT_HIT", async () => {
    const echo = definePlugin({
      name: "echo",
      setup(bot) {
        bot.hear(/^echo (.+)$/, (ctx) => ctx.reply(ctx.match[1]!));
      },
    });
    t = await createTestBot({
      plugins: [echo],
      config: fast,
      client: { retry: { baseMs: 5, capMs: 20 } },
      sandbox: { heartbeatSeconds: 0.2 },
    });
    const { sandbox } = t;
    // Rules apply in order: the first reply meets the 500, its resend the drop, then two rate limits.
    const faults = [
      sandbox.faults.add({ route: "POST /messages", status: 500, code: "INTERNAL", times: 1 }),
      sandbox.faults.add({ route: "POST /messages", drop: true, times: 1 }),
      sandbox.faults.add({
        route: "POST /messages",
        status: 429,
        code: "RATE_LIMIT_HIT",
        extra: { "retry-after": 0.02 },
        times: 2,
      }),
    ];
    for (const word of ["one", "two", "three"]) post(sandbox, `echo ${word}`, { topic: "faults" });
    const replies = [
      (await t.reply()).content,
      (await t.reply()).content,
      (await t.reply()).content,
    ];
    expect(replies).toEqual(["one", "two", "three"]);
    expect(faults.map((id) => sandbox.faults.hits.get(id))).toEqual([1, 1, 2]);
    post(sandbox, "echo four", { topic: "faults" });
    expect((await t.reply()).content).toBe("four");
    expect(t.botMessages().map((m) => m.content)).toEqual(["one", "two", "three", "four"]);
  });

  it("does not send a reply again when the server stored it but the answer was lost", async () => {
    const echo = definePlugin({
      name: "echo",
      setup(bot) {
        bot.hear(/^echo (.+)$/, (ctx) => ctx.reply(ctx.match[1]!));
      },
    });
    const log = captureLog();
    t = await createTestBot({
      plugins: [echo],
      config: fast,
      client: { retry: { baseMs: 5, capMs: 20 } },
      sandbox: { heartbeatSeconds: 0.2 },
      logger: log.logger,
    });
    const { sandbox } = t;
    const bot = sandbox.bot.email;
    // The first reply is stored and its connection dropped; the second stored and answered 502.
    sandbox.faults.add({ route: "POST /messages", user: bot, drop: true, after: true, times: 1 });
    sandbox.faults.add({ route: "POST /messages", user: bot, status: 502, after: true, times: 1 });
    post(sandbox, "echo one", { topic: "lost answers" });
    expect((await t.reply()).content).toBe("one");
    post(sandbox, "echo two", { topic: "lost answers" });
    expect((await t.reply()).content).toBe("two");
    post(sandbox, "echo three", { topic: "lost answers" });
    expect((await t.reply()).content).toBe("three");
    await t.expectNoReply();
    expect(t.botMessages().map((m) => m.content)).toEqual(["one", "two", "three"]);
    const notResent = log
      .lines()
      .filter((l) => l.msg === "a send that seemed to fail had arrived; not resending");
    expect(notResent).toHaveLength(2);
  });

  it("waits out an outage far longer than six attempts and delivers the reply once, with no apology", async () => {
    const echo = definePlugin({
      name: "echo",
      setup(bot) {
        bot.hear(/^echo (.+)$/, (ctx) => ctx.reply(ctx.match[1]!));
      },
    });
    t = await createTestBot({
      plugins: [echo],
      config: { ...fast, sendRetry: { baseMs: 5, capMs: 40 } },
      client: { retry: { baseMs: 5, capMs: 20, maxAttempts: 2 } },
      sandbox: { heartbeatSeconds: 0.2 },
    });
    const { sandbox } = t;
    const bot = sandbox.bot.email;
    // The server "goes away" for the bot's sends: every connection dropped, 10 times over
    // (each drop is followed by a read-back that finds nothing, then a resend).
    const outage = [sandbox.faults.add({ route: "POST /messages", user: bot, drop: true })];
    post(sandbox, "echo through the outage", { topic: "outage" });
    await until(() => (sandbox.faults.hits.get(outage[0]!) ?? 0) >= 10, "15 failed sends", 20_000);
    for (const id of outage) sandbox.faults.remove(id);
    expect((await t.reply()).content).toBe("through the outage");
    await t.expectNoReply();
    expect(t.botMessages().map((m) => m.content)).toEqual(["through the outage"]);
  });

  it("pauses a plugin that floods one conversation, logs why once, and keeps serving the others", async () => {
    // Up to three replies to one human message are answers the guard does not count; the
    // fourth and fifth are counted, so a plugin answering each message five times trips it.
    const chatty = definePlugin({
      name: "chatty",
      setup(bot) {
        bot.hear(/^talk (\d+)$/, async (ctx) => {
          for (let i = 1; i <= 5; i++) await ctx.reply(`${ctx.match[1]}.${i}`);
        });
      },
    });
    const log = captureLog();
    t = await createTestBot({
      plugins: [chatty],
      config: { ...fast, loopGuard: { maxMessages: 4, windowMs: 60_000, pauseMs: 60_000 } },
      sandbox: { heartbeatSeconds: 0.2 },
      logger: log.logger,
    });
    const { sandbox } = t;
    for (const n of [1, 2, 3]) post(sandbox, `talk ${n}`, { topic: "loop" });
    post(sandbox, "talk 9", { topic: "elsewhere" });
    const replies = [];
    for (let i = 0; i < 18; i++) replies.push(await t.reply());
    const inLoop = replies.filter((m) => m.topic === "loop").map((m) => m.content);
    // Counted: 1.4, 1.5, 2.4, 2.5; the fifth counted send (3.4) trips the guard, 3.5 is refused too.
    expect(inLoop).toEqual([
      "1.1",
      "1.2",
      "1.3",
      "1.4",
      "1.5",
      "2.1",
      "2.2",
      "2.3",
      "2.4",
      "2.5",
      "3.1",
      "3.2",
      "3.3",
    ]);
    expect(replies.filter((m) => m.topic === "elsewhere").map((m) => m.content)).toEqual([
      "9.1",
      "9.2",
      "9.3",
      "9.4",
      "9.5",
    ]);
    const warnings = () => log.lines().filter((l) => String(l.msg).includes("is paused in"));
    await until(() => warnings().length > 0, "the guard's warning");
    // Still serving other conversations after the trip.
    post(sandbox, "talk 10", { topic: "third" });
    const third = [];
    for (let i = 0; i < 5; i++) third.push((await t.reply()).content);
    expect(third).toEqual(["10.1", "10.2", "10.3", "10.4", "10.5"]);
    await t.bot.stop();
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ plugin: "chatty", level: 40 });
    expect(log.lines().filter((l) => l.level === 50)).toEqual([]);
    expect(t.botMessages()).toHaveLength(23);
  });
});
