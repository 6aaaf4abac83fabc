// Chaos: a slow handler in one topic does not hold up the others; a flood of commands does not pile up in memory.
import { afterEach, describe, expect, it } from "vitest";
import { arg, definePlugin } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";
import {
  LOAD_CONFIG,
  addUsers,
  botReplies,
  expectEachAnsweredOnceInOrder,
  sendSurely,
  waitUntil,
} from "./helpers.js";

/** A gate handlers wait at until the test opens it: a handler as slow as the test wants. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

let t: TestBot | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe("chaos: a slow handler", () => {
  it("one topic's slow handler does not delay the other topics", async () => {
    const slow = gate();
    let slowStarted = false;
    const plugin = definePlugin({
      name: "slow",
      setup(bot) {
        bot.command("slow", { description: "Takes its time" }, async (ctx) => {
          slowStarted = true;
          await slow.opened;
          await ctx.reply("slow done");
        });
        bot.command("echo", { description: "Answers at once", args: { n: arg.number() } }, (ctx) =>
          ctx.reply(`echo ${ctx.message.id}`),
        );
      },
    });
    t = await createTestBot({
      plugins: [plugin],
      config: LOAD_CONFIG,
      sandbox: { heartbeatSeconds: 1 },
    });
    const { sandbox } = t;
    try {
      await t.send("!slow", { topic: "slow lane" });
      await waitUntil(
        () => slowStarted,
        5_000,
        () => "the slow handler to start",
      );
      const [client] = addUsers(sandbox, 1);
      const others: { id: number; topic: string }[] = [];
      for (let i = 0; i < 10; i++) {
        const topic = `fast ${i % 5}`;
        others.push({ id: await sendSurely(client!, topic, `!echo ${i}`), topic });
      }
      await client!.close();
      await waitUntil(
        () => botReplies(sandbox).length >= others.length,
        10_000,
        () =>
          `${botReplies(sandbox).length} of ${others.length} replies in other topics while one handler is slow`,
      );
      expect(botReplies(sandbox).some((r) => r.content === "slow done")).toBe(false);
      expectEachAnsweredOnceInOrder(sandbox, others);
    } finally {
      slow.open();
    }
    await waitUntil(
      () => botReplies(sandbox).some((r) => r.content === "slow done"),
      5_000,
      () => "the slow handler's reply once released",
    );
  }, 30_000);
});

describe("chaos: commands faster than handlers", () => {
  it("keeps what it has taken in bounded when commands arrive faster than handlers finish", async () => {
    const FLOOD = 600;
    const hold = gate();
    let received = 0;
    let started = 0;
    const plugin = definePlugin({
      name: "flood",
      setup(bot) {
        // Counts every message the runtime has taken off the server's queue.
        bot.on("message", () => {
          received++;
        });
        bot.command(
          "echo",
          { description: "Waits, then answers", args: { n: arg.number() } },
          async (ctx) => {
            started++;
            await hold.opened;
            await ctx.reply(`echo ${ctx.message.id}`);
          },
        );
      },
    });
    t = await createTestBot({
      plugins: [plugin],
      config: LOAD_CONFIG,
      sandbox: { heartbeatSeconds: 1 },
    });
    const { sandbox } = t;
    const users = addUsers(sandbox, 10);
    const commands: { id: number; topic: string }[] = [];
    let peak = 0;
    try {
      await Promise.all(
        users.map(async (client, u) => {
          for (let i = u; i < FLOOD; i += users.length) {
            const topic = `flood ${i % 10}`;
            commands.push({ id: await sendSurely(client, topic, `!echo ${i}`), topic });
            peak = Math.max(peak, received);
          }
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      peak = Math.max(peak, received);
      // Nothing can finish while the gate is shut, so everything taken in is held in memory.
      expect(started).toBeLessThanOrEqual(peak);
      expect(peak, "messages taken in while no handler could finish").toBeLessThan(FLOOD / 2);
    } finally {
      hold.open();
    }
    await waitUntil(
      () => botReplies(sandbox).length >= FLOOD,
      60_000,
      () => `${botReplies(sandbox).length} of ${FLOOD} replies after the flood`,
    );
    await Promise.all(users.map((c) => c.close()));
    expectEachAnsweredOnceInOrder(sandbox, commands);
  }, 90_000);
});
