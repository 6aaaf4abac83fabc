import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { definePlugin } from "topicbot";
import { gate, post, until } from "../helpers/reliability.js";

describe("dispatch: ordering per conversation, concurrency across them, backpressure", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("keeps a topic in order while a slow handler there does not hold other topics up", async () => {
    const slow = gate();
    const log: string[] = [];
    let running = 0;
    let peak = 0;
    const jobs = definePlugin({
      name: "jobs",
      setup(bot) {
        bot.hear(/^job (\S+)$/, async (ctx) => {
          const name = ctx.match[1]!;
          running++;
          peak = Math.max(peak, running);
          log.push(
            `start ${ctx.conversation.type === "channel" ? ctx.conversation.topic : ""}/${name}`,
          );
          if (name === "s1") await slow.opened;
          running--;
          log.push(`end ${name}`);
          await ctx.reply(`done ${name}`);
        });
      },
    });
    t = await createTestBot({
      plugins: [jobs],
      config: { respondTo: "all", concurrency: 2 },
      sandbox: { heartbeatSeconds: 0.2 },
    });
    for (const n of [1, 2, 3]) post(t.sandbox, `job s${n}`, { topic: "slow" });
    for (const n of [1, 2, 3]) post(t.sandbox, `job a${n}`, { topic: "fast a" });
    for (const n of [1, 2]) post(t.sandbox, `job b${n}`, { topic: "fast b" });

    // Five fast replies arrive while s1 is still blocked.
    const fast = [];
    for (let i = 0; i < 5; i++) fast.push((await t.reply()).content);
    expect(fast.sort()).toEqual(["done a1", "done a2", "done a3", "done b1", "done b2"]);
    expect(log).not.toContain("end s1");
    expect(log.filter((l) => l.startsWith("start slow/"))).toEqual(["start slow/s1"]);

    slow.open();
    const rest = [(await t.reply()).content, (await t.reply()).content, (await t.reply()).content];
    expect(rest).toEqual(["done s1", "done s2", "done s3"]);
    // Order within each topic, at most two conversations at a time.
    const order = (prefix: string) => log.filter((l) => l.startsWith("end " + prefix));
    expect(order("s")).toEqual(["end s1", "end s2", "end s3"]);
    expect(order("a")).toEqual(["end a1", "end a2", "end a3"]);
    expect(order("b")).toEqual(["end b1", "end b2"]);
    expect(peak).toBeLessThanOrEqual(2);
  });

  it("stops taking events while handlers are behind: queued tasks stay bounded, then all run once in order", async () => {
    const release = gate();
    const handled: number[] = [];
    const slow = definePlugin({
      name: "slow",
      setup(bot) {
        bot.hear(/^n (\d+)$/, async (ctx) => {
          await release.opened;
          handled.push(Number(ctx.match[1]));
        });
      },
    });
    t = await createTestBot({
      plugins: [slow],
      config: { respondTo: "all", concurrency: 1, maxQueued: 3 },
      sandbox: { heartbeatSeconds: 0.2 },
    });
    const { bot, sandbox } = t;
    for (let i = 1; i <= 30; i++) post(sandbox, `n ${i}`, { topic: `topic ${i % 5}` });

    // One running and three waiting, and no more: the rest stays on the server, unacknowledged.
    await until(() => bot.pending === 4, "the dispatcher to fill up");
    let peak = bot.pending;
    const sampler = setInterval(() => (peak = Math.max(peak, bot.pending)), 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(bot.pending).toBe(4);
    expect(handled).toEqual([]);
    const [queue] = sandbox.realm.queues.forUser(sandbox.bot.userId);
    expect(queue!.events.filter((e) => e.type === "message").length).toBeGreaterThan(20);

    release.open();
    await until(() => handled.length === 30, "all 30 messages to be handled");
    clearInterval(sampler);
    expect(peak).toBeLessThanOrEqual(4);
    expect(new Set(handled).size).toBe(30);
    for (let k = 0; k < 5; k++) {
      const lane = handled.filter((n) => n % 5 === k);
      expect(lane).toEqual([...lane].sort((a, b) => a - b));
    }
  });
});
