import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { createBot, createFileStore, createMemoryStore, definePlugin } from "topicbot";
import { captureLog } from "../helpers/log.js";
import { post, until } from "../helpers/reliability.js";

/** Answers `echo <x>` with `<x>` and records every message it handled. */
function echo() {
  const handled: number[] = [];
  const plugin = definePlugin({
    name: "echo",
    setup(bot) {
      bot.hear(/^echo (.+)$/, async (ctx) => {
        handled.push(ctx.message.id);
        await ctx.reply(ctx.match[1]!);
      });
    },
  });
  return { plugin, handled };
}

const fast = {
  respondTo: "all" as const,
  eventLoop: { backoff: { baseMs: 5, capMs: 20 } },
  sendRetry: { baseMs: 5, capMs: 20 },
};

/** The bot's replies so far, by content. */
const contents = (t: TestBot) => t.botMessages().map((m) => m.content);

describe("recovery: lost queues, restarts, network loss and hung polls, each message handled once", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("re-registers after BAD_EVENT_QUEUE_ID and catches up on what was sent meanwhile, without doubles", async () => {
    const { plugin, handled } = echo();
    t = await createTestBot({
      plugins: [plugin],
      config: fast,
      sandbox: { heartbeatSeconds: 0.2 },
    });
    const { sandbox } = t;
    const ids = [post(sandbox, "echo one")];
    expect((await t.reply()).content).toBe("one");
    const first = t.bot.registration!.queue_id;

    // The new registration and the catch-up are slowed, so messages land with no queue at all,
    // and then both in the new queue and in the catch-up's GET /messages.
    sandbox.faults.add({ route: "POST /register", delayMs: 100, times: 1 });
    sandbox.faults.add({ route: "GET /messages", delayMs: 200, times: 1 });
    expect(sandbox.expireQueues({ userId: sandbox.bot.userId })).toEqual([first]);
    ids.push(post(sandbox, "echo two"), post(sandbox, "echo three"));
    const queues = () => sandbox.realm.queues.forUser(sandbox.bot.userId);
    await until(() => queues().length === 1, "a new queue");
    ids.push(post(sandbox, "echo four"), post(sandbox, "echo five"));

    const replies = [];
    for (let i = 0; i < 4; i++) replies.push((await t.reply()).content);
    expect(replies).toEqual(["two", "three", "four", "five"]);
    ids.push(post(sandbox, "echo six"));
    expect((await t.reply()).content).toBe("six");
    expect(t.bot.registration!.queue_id).not.toBe(first);
    expect(handled).toEqual(ids);
    expect(contents(t)).toEqual(["one", "two", "three", "four", "five", "six"]);
  });

  it("after a restart, answers what was sent while it was down, once, from the persisted last handled ID", async () => {
    const dir = await mkdtemp(join(tmpdir(), "topicbot-restart-"));
    try {
      const path = join(dir, "state.json");
      const first = echo();
      let storage = await createFileStore({ path });
      t = await createTestBot({
        plugins: [first.plugin],
        config: { ...fast, storage },
        sandbox: { heartbeatSeconds: 0.2 },
      });
      const { sandbox } = t;
      post(sandbox, "echo before");
      expect((await t.reply()).content).toBe("before");
      await t.bot.stop();
      await storage.close();
      expect(sandbox.realm.queues.forUser(sandbox.bot.userId)).toEqual([]);

      const missed = [post(sandbox, "echo while down 1"), post(sandbox, "echo while down 2")];
      storage = await createFileStore({ path });
      const second = echo();
      const bot = createBot({
        server: { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey },
        plugins: [second.plugin],
        handleSignals: false,
        rateLimit: false,
        storage,
        ...fast,
      });
      await bot.start();
      try {
        expect((await t.reply()).content).toBe("while down 1");
        expect((await t.reply()).content).toBe("while down 2");
        const later = post(sandbox, "echo after");
        expect((await t.reply()).content).toBe("after");
        expect(second.handled).toEqual([...missed, later]);
        expect(contents(t)).toEqual(["before", "while down 1", "while down 2", "after"]);
      } finally {
        await bot.stop();
        await storage.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("catches up at most catchUpWindow.maxMessages, says where it stopped, and goes on with the new queue", async () => {
    const { plugin, handled } = echo();
    const log = captureLog();
    t = await createTestBot({
      plugins: [plugin],
      config: { ...fast, catchUpWindow: { maxMessages: 3 } },
      sandbox: { heartbeatSeconds: 0.2 },
      logger: log.logger,
    });
    const { sandbox } = t;
    const before = post(sandbox, "echo before");
    const answer = await t.reply();
    expect(answer.content).toBe("before");

    // Five messages land while the bot has no queue: more than the window holds.
    sandbox.expireQueues({ userId: sandbox.bot.userId });
    const missed = [1, 2, 3, 4, 5].map((n) => post(sandbox, `echo missed ${n}`));
    for (const n of [1, 2, 3]) expect((await t.reply()).content).toBe(`missed ${n}`);
    const queues = () => sandbox.realm.queues.forUser(sandbox.bot.userId);
    await until(() => queues().length === 1, "a new queue");
    const after = post(sandbox, "echo after");
    expect((await t.reply()).content).toBe("after");

    expect(handled).toEqual([before, ...missed.slice(0, 3), after]);
    const warning = log.lines().find((l) => String(l.msg).startsWith("catch-up window exceeded"));
    expect(warning).toMatchObject({ reachedId: missed[2], truncated: true });
    // The watermark: the command, or the bot's own answer if its event came before the expiry.
    expect([before, answer.id]).toContain(warning!.after);
    expect(warning!.msg).toBe(
      `catch-up window exceeded: messages after ${missed[2]} sent before the new queue are not handled (catchUpWindow.maxMessages)`,
    );
  });

  it("after a restart, an answer to a question asked before it is told the question was lost, once", async () => {
    const greeter = definePlugin({
      name: "greeter",
      setup(bot) {
        bot.command("hello", { description: "Asks your name" }, async (ctx) => {
          const answer = await ctx.ask("What's your name?");
          if (answer) await ctx.reply(`Hello, ${answer.text}!`);
        });
      },
    });
    const storage = createMemoryStore();
    t = await createTestBot({
      plugins: [greeter],
      config: { ...fast, storage },
      sandbox: { heartbeatSeconds: 0.2 },
    });
    const { sandbox } = t;
    await t.send("!hello");
    await t.expectReply("What's your name?");
    await t.bot.stop();

    const second = createBot({
      server: { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey },
      plugins: [greeter],
      handleSignals: false,
      rateLimit: false,
      storage,
      ...fast,
    });
    await second.start();
    try {
      await t.send("Ada");
      await t.expectReply(
        `I asked you "What's your name?" before I was restarted, and lost my place. Please start again.`,
      );
      // Told once; then the dialog works as usual on the new process.
      await t.send("!hello");
      await t.expectReply("What's your name?");
      await t.send("Bob");
      await t.expectReply("Hello, Bob!");
      await t.send("Carol");
      await t.expectNoReply();
    } finally {
      await second.stop();
    }
  });

  it("rides out 5xx answers and dropped connections on GET /events, re-registering after long loss", async () => {
    const { plugin, handled } = echo();
    const log = captureLog();
    t = await createTestBot({
      plugins: [plugin],
      config: { ...fast, eventLoop: { ...fast.eventLoop, reregisterAfterMs: 0 } },
      sandbox: { heartbeatSeconds: 0.2 },
      logger: log.logger,
    });
    const { sandbox } = t;
    const first = t.bot.registration!.queue_id;
    const errors = sandbox.faults.add({ route: "GET /events", status: 500, times: 1 });
    const drops = sandbox.faults.add({ route: "GET /events", drop: true, times: 2 });
    const ids = [post(sandbox, "echo a"), post(sandbox, "echo b")];
    expect([(await t.reply()).content, (await t.reply()).content]).toEqual(["a", "b"]);
    await until(() => sandbox.faults.list().length === 0, "every fault to be used");
    ids.push(post(sandbox, "echo c"));
    expect((await t.reply()).content).toBe("c");
    expect(sandbox.faults.hits.get(errors)).toBe(1);
    expect(sandbox.faults.hits.get(drops)).toBe(2);
    expect(handled).toEqual(ids);
    expect(contents(t)).toEqual(["a", "b", "c"]);
    // Two failures in a row with reregisterAfterMs 0 count as long loss: a new queue, caught up.
    expect(t.bot.registration!.queue_id).not.toBe(first);
    expect(log.lines().some((l) => String(l.msg).startsWith("polling has failed for long"))).toBe(
      true,
    );
  });

  it("abandons a poll that never returns (the watchdog) and polls again", async () => {
    const { plugin, handled } = echo();
    const log = captureLog();
    t = await createTestBot({
      plugins: [plugin],
      config: { ...fast, eventLoop: { ...fast.eventLoop, watchdogMs: 300 } },
      sandbox: { heartbeatSeconds: 0.1 },
      logger: log.logger,
    });
    const { sandbox } = t;
    // Far beyond the watchdog; the client's own long-poll timeout (from registration) is 30 s.
    const hang = sandbox.faults.add({ route: "GET /events", delayMs: 3_000, times: 1 });
    expect(t.bot.api.longPollTimeoutMs).toBeGreaterThan(3_000);
    await until(() => sandbox.faults.hits.get(hang) === 1, "a poll to hang");
    const id = post(sandbox, "echo still here");
    expect((await t.reply()).content).toBe("still here");
    expect(handled).toEqual([id]);
    expect(log.lines().some((l) => l.msg === "poll abandoned; polling again")).toBe(true);
  });
});
