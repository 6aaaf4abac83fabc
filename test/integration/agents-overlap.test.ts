import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import {
  createBot,
  createFileStore,
  definePlugin,
  type KeyValueStore,
  type Overlap,
} from "topicbot";
import { gate, until } from "../helpers/reliability.js";
import { memoryDeliveryOf } from "../../src/state/delivery/memory.js";
import { isMemoryStore } from "../../src/state/key-value/store.js";

/** One call of the handler as it saw it, finished when the test opens its gate. */
interface Call {
  id: number;
  skipped: number[];
  signal: AbortSignal;
  finish: () => void;
}

/**
 * A plugin whose `m<n>` listener records each call and waits for the test (or for an interrupt)
 * before it answers. `overlap` goes on the listener, `pluginOverlap` on the plugin.
 */
function agent(overlap?: Overlap, pluginOverlap?: Overlap) {
  const calls: Call[] = [];
  const queued: number[] = [];
  const plugin = definePlugin({
    name: "agent",
    ...(pluginOverlap !== undefined && { overlap: pluginOverlap }),
    setup(bot) {
      bot.hear(
        /^m\d+$/,
        async (ctx) => {
          const { open, opened } = gate();
          calls.push({
            id: ctx.message.id,
            skipped: ctx.skipped.map((m) => m.id),
            signal: ctx.signal,
            finish: open,
          });
          const interrupted = new Promise<void>((resolve) =>
            ctx.signal.addEventListener("abort", () => resolve(), { once: true }),
          );
          await Promise.race([opened, interrupted]);
          if (ctx.signal.aborted) return;
          await ctx.reply(`${ctx.text} (+${ctx.skipped.length})`);
        },
        overlap === undefined ? {} : { overlap },
      );
      // A command of the same plugin that keeps the default (queue) unless the plugin says otherwise.
      bot.command("q", { overlap: "queue" }, (ctx) => {
        queued.push(ctx.message.id);
      });
    },
  });
  return { plugin, calls, queued };
}

const all = { respondTo: "all" as const };

/** The delivery state the bot saved (watermark and finished IDs above it), once `ready` holds. */
async function savedDelivery(
  storage: KeyValueStore,
  ready: (state: { lastHandledId: number; handledAbove: number[] }) => boolean,
) {
  const deadline = Date.now() + 5_000;
  for (;;) {
    // A memory store's delivery state lives beside it (what the next bot over it would load).
    const state = isMemoryStore(storage)
      ? (await memoryDeliveryOf(storage).load()).watermark
      : ((await storage.namespace("topicbot:runtime").get("delivery")) as
          { lastHandledId: number; handledAbove: number[] } | undefined);
    if (state && ready(state)) return state;
    if (Date.now() > deadline) throw new Error(`saved delivery state: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until the bot holds `n` messages (waiting, held by a strategy, or running). */
const holding = (t: TestBot, n: number) => until(() => t.bot.pending === n, `${n} messages held`);

describe("overlapping messages: strategies chosen per plugin or per handler", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("latest: one more call with the newest message, the ones in between in ctx.skipped", async () => {
    const a = agent("latest");
    t = await createTestBot({ plugins: [a.plugin], config: all });
    const m1 = await t.send("m1");
    await until(() => a.calls.length === 1, "the first call");
    const later = [await t.send("m2"), await t.send("m3"), await t.send("m4")];
    await holding(t, 4);
    expect(a.calls).toHaveLength(1);
    a.calls[0]!.finish();
    expect((await t.reply()).content).toBe("m1 (+0)");
    await until(() => a.calls.length === 2, "the second call");
    expect(a.calls.map((c) => [c.id, c.skipped])).toEqual([
      [m1, []],
      [later[2], [later[0], later[1]]],
    ]);
    // The folded messages are delivered only when the call that took them ends: a message of
    // another topic finishes meanwhile, and the saved watermark stays below them (a crash now
    // would hand m2..m4 over again).
    expect(t.bot.pending).toBe(3);
    const q = await t.send("!q", { topic: "elsewhere" });
    await until(() => a.queued.length === 1, "the command in another topic");
    const during = await savedDelivery(t.bot.storage, (d) => d.handledAbove.includes(q));
    expect(during.lastHandledId).toBeGreaterThanOrEqual(m1);
    expect(during.lastHandledId).toBeLessThan(later[0]!);
    a.calls[1]!.finish();
    expect((await t.reply()).content).toBe("m4 (+2)");
    await holding(t, 0);
    await savedDelivery(t.bot.storage, (d) => d.lastHandledId >= q);
    await t.expectNoReply();
  });

  it("burst: waits for a quiet window on the fake clock, then one call with all of them", async () => {
    const a = agent({ mode: "burst", quietMs: 1500 });
    t = await createTestBot({ plugins: [a.plugin], config: all });
    const m1 = await t.send("m1");
    await holding(t, 1);
    await t.clock.advance(1000);
    const m2 = await t.send("m2");
    await holding(t, 2);
    await t.clock.advance(1000); // 2 s after m1, 1 s after m2: m2 restarted the window
    const m3 = await t.send("m3");
    await holding(t, 3);
    await t.clock.advance(1499);
    expect(a.calls).toHaveLength(0);
    await t.clock.advance(1);
    await until(() => a.calls.length === 1, "the burst's call");
    expect(a.calls.map((c) => [c.id, c.skipped])).toEqual([[m3, [m1, m2]]]);
    a.calls[0]!.finish();
    expect((await t.reply()).content).toBe("m3 (+2)");
    await holding(t, 0);
  });

  it("interrupt: a new message aborts ctx.signal; the next call gets the interrupted message in skipped", async () => {
    const a = agent("interrupt");
    t = await createTestBot({ plugins: [a.plugin], config: all });
    const m1 = await t.send("m1");
    await until(() => a.calls.length === 1, "the first call");
    expect(a.calls[0]!.signal.aborted).toBe(false);
    const m2 = await t.send("m2");
    await until(() => a.calls.length === 2, "the call after the interrupt");
    expect(a.calls[0]!.signal.aborted).toBe(true);
    expect(a.calls[1]!.signal.aborted).toBe(false);
    expect(a.calls.map((c) => [c.id, c.skipped])).toEqual([
      [m1, []],
      [m2, [m1]],
    ]);
    a.calls[1]!.finish();
    expect((await t.reply()).content).toBe("m2 (+1)");
    await holding(t, 0);
    await t.expectNoReply(); // the interrupted call said nothing
  });

  it("concurrent: calls of one conversation at once, up to maxConcurrent", async () => {
    const a = agent({ mode: "concurrent", maxConcurrent: 2 });
    t = await createTestBot({ plugins: [a.plugin], config: all });
    const ids = [await t.send("m1"), await t.send("m2"), await t.send("m3")];
    await until(() => a.calls.length === 2, "two calls at once");
    await holding(t, 3);
    expect(a.calls.map((c) => c.id)).toEqual([ids[0], ids[1]]);
    a.calls[1]!.finish();
    expect((await t.reply()).content).toBe("m2 (+0)");
    await until(() => a.calls.length === 3, "the third call");
    expect(a.calls[2]!.id).toBe(ids[2]);
    a.calls[0]!.finish();
    a.calls[2]!.finish();
    const rest = [(await t.reply()).content, (await t.reply()).content].sort();
    expect(rest).toEqual(["m1 (+0)", "m3 (+0)"]);
    expect(a.calls.every((c) => c.skipped.length === 0)).toBe(true);
    await holding(t, 0);
  });

  it("a full strategy holds the conversation back (backpressure) and hands every message to a call", async () => {
    const a = agent({ mode: "latest", maxPending: 2 });
    t = await createTestBot({ plugins: [a.plugin], config: all });
    const ids = [await t.send("m1")];
    await until(() => a.calls.length === 1, "the first call");
    for (const text of ["m2", "m3", "m4", "m5"]) ids.push(await t.send(text));
    // m1 runs, m2 and m3 are held, m4 waits for room (its conversation stops), m5 waits behind it.
    await holding(t, 5);
    a.calls[0]!.finish();
    await until(() => a.calls.length === 2, "the second call");
    expect([a.calls[1]!.id, a.calls[1]!.skipped]).toEqual([ids[2], [ids[1]]]);
    a.calls[1]!.finish();
    await until(() => a.calls.length === 3, "the third call");
    expect([a.calls[2]!.id, a.calls[2]!.skipped]).toEqual([ids[4], [ids[3]]]);
    a.calls[2]!.finish();
    await holding(t, 0);
    // Nothing lost, nothing twice: each message was a call's own or in its skipped, once.
    expect(a.calls.flatMap((c) => [...c.skipped, c.id])).toEqual(ids);
    expect(t.botMessages().map((m) => m.content)).toEqual(["m1 (+0)", "m3 (+1)", "m5 (+1)"]);
  });

  it("the plugin's overlap is the default of its handlers; a handler's own option wins", async () => {
    const a = agent(undefined, "latest");
    t = await createTestBot({ plugins: [a.plugin], config: all });
    await t.send("m1");
    await until(() => a.calls.length === 1, "the first call");
    // The command keeps `queue` (its own choice) and is not held behind the running call.
    const q = [await t.send("!q"), await t.send("!q")];
    await until(() => a.queued.length === 2, "both commands");
    expect(a.queued).toEqual(q);
    await t.send("m2");
    await t.send("m3");
    await holding(t, 3);
    a.calls[0]!.finish();
    await until(() => a.calls.length === 2, "the second call");
    expect(a.calls[1]!.skipped).toHaveLength(1);
    a.calls[1]!.finish();
    await holding(t, 0);
  });

  it("names the handler when its overlap option is wrong", async () => {
    const broken = definePlugin({
      name: "broken",
      setup(bot) {
        bot.command("x", { overlap: { mode: "burst", quietMs: -1 } }, () => undefined);
      },
    });
    await expect(createTestBot({ plugins: [broken] })).rejects.toThrow(
      'plugin "broken" failed in setup: plugin "broken": command "x": overlap.quietMs must be 0 or more milliseconds; got -1',
    );
  });
});

describe("overlapping messages and delivery: finished when the call that took them ends", () => {
  it("does not move the watermark past a message waiting in a burst window: a restart handles it, folded ones are not handled again", async () => {
    const dir = await mkdtemp(join(tmpdir(), "topicbot-overlap-"));
    const path = join(dir, "state.json");
    let storage = await createFileStore({ path });
    const first = agent({ mode: "burst", quietMs: 1500 });
    const t = await createTestBot({
      plugins: [first.plugin],
      config: { ...all, storage, eventLoop: { backoff: { baseMs: 5, capMs: 20 } } },
    });
    try {
      // A burst that ran: m1 and m2 in one call, which ended.
      const m1 = await t.send("m1");
      const m2 = await t.send("m2");
      await holding(t, 2);
      await t.clock.advance(1500);
      await until(() => first.calls.length === 1, "the burst's call");
      first.calls[0]!.finish();
      expect((await t.reply()).content).toBe("m2 (+1)");
      await holding(t, 0);
      expect(first.calls.map((c) => [c.id, c.skipped])).toEqual([[m2, [m1]]]);

      // m3 waits in a window; a later message of another topic is handled and finished.
      const m3 = await t.send("m3");
      await holding(t, 1);
      const q = await t.send("!q", { topic: "elsewhere" });
      await until(() => first.queued.length === 1, "the command in another topic");
      expect(first.queued).toEqual([q]);
      // The saved watermark stays below m3 while it waits; q, finished, is kept above it.
      const state = await savedDelivery(storage, (d) => d.handledAbove.includes(q));
      expect(state.lastHandledId).toBeLessThan(m3);
      expect(state.lastHandledId).toBeGreaterThanOrEqual(m2);
      await t.bot.stop();
      await storage.close();
      expect(first.calls).toHaveLength(1); // m3 never ran

      storage = await createFileStore({ path });
      const second = agent("queue");
      const bot = createBot({
        server: { site: t.sandbox.url, email: t.sandbox.bot.email, apiKey: t.sandbox.bot.apiKey },
        plugins: [second.plugin],
        handleSignals: false,
        rateLimit: false,
        storage,
        ...all,
      });
      await bot.start();
      try {
        await until(() => second.calls.length === 1, "m3 handled after the restart");
        second.calls[0]!.finish();
        expect((await t.reply()).content).toBe("m3 (+0)");
        const m4 = await t.send("m4");
        await until(() => second.calls.length === 2, "m4");
        second.calls[1]!.finish();
        expect((await t.reply()).content).toBe("m4 (+0)");
        // m1 and m2 (their call ended) and the command were not handled again.
        expect(second.calls.map((c) => c.id)).toEqual([m3, m4]);
        expect(second.queued).toEqual([]);
      } finally {
        await bot.stop();
      }
    } finally {
      await t.close();
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
