import { afterEach, describe, expect, it } from "vitest";
import type { Bot } from "../../src/bot/bot.js";
import { definePlugin } from "../../src/bot/plugin.js";
import type { PushSource } from "../helpers/in-memory-bot.js";
import { messageEvent, startInMemoryBot } from "../helpers/in-memory-bot.js";

// Polls per reply under load: the next poll (`PushSource.push` resolving) waits while lanes with
// work wait for a concurrency slot, and goes at once otherwise.

/** Lets pending promise callbacks and I/O-free turns run (bounded). */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** A bot with `concurrency` slots whose handler waits until the test releases its message. */
async function gatedBot(concurrency: number): Promise<{
  bot: Bot;
  events: PushSource;
  started: string[];
  release(content: string): void;
}> {
  const gates = new Map<string, () => void>();
  const started: string[] = [];
  let closing = false;
  const plugin = definePlugin({
    name: "gated",
    setup(bot) {
      bot.hear(/.*/, async (ctx) => {
        started.push(ctx.message.content);
        if (closing) return;
        await new Promise<void>((resolve) => gates.set(ctx.message.content, resolve));
      });
    },
  });
  const { bot, events, close } = await startInMemoryBot(plugin, undefined, {
    concurrency,
    respondTo: "all",
  });
  stop = async () => {
    closing = true;
    for (const open of gates.values()) open();
    await close();
  };
  return {
    bot,
    events,
    started,
    release: (content) => gates.get(content)?.(),
  };
}

describe("the next poll", () => {
  it("waits while conversations wait for a slot, and goes once none does", async () => {
    const { events, started, release } = await gatedBot(2);
    let polled = false;
    const poll = events
      .push([
        messageEvent(1, 7, "a", "a1"),
        messageEvent(2, 7, "b", "b1"),
        messageEvent(3, 7, "c", "c1"),
      ])
      .then(() => (polled = true));
    await turns();
    // Two slots: a1 and b1 run, c's lane waits for a slot; a message polled now would wait too.
    expect(started).toEqual(["a1", "b1"]);
    // The old intake let the next poll go at once: true.
    expect(polled).toBe(false);
    release("a1");
    await turns();
    expect(started).toEqual(["a1", "b1", "c1"]);
    // No lane waits for a slot any more: the next poll goes.
    await poll;
    expect(polled).toBe(true);
  });

  it("goes at once while there are free slots (no latency added below saturation)", async () => {
    const { events, started } = await gatedBot(2);
    let polled = false;
    const poll = events
      .push([messageEvent(1, 7, "a", "a1"), messageEvent(2, 7, "b", "b1")])
      .then(() => (polled = true));
    await turns(1);
    expect(started).toEqual(["a1", "b1"]);
    expect(polled).toBe(true);
    await poll;
    // A second message in a busy conversation waits in its lane, not for a slot: no hold either.
    let again = false;
    const next = events.push([messageEvent(3, 7, "a", "a2")]).then(() => (again = true));
    await turns(1);
    expect(again).toBe(true);
    await next;
  });

  it("is held no longer than a second when handlers hold every slot", async () => {
    const { events, started } = await gatedBot(1);
    const poll = events.push([messageEvent(1, 7, "a", "a1"), messageEvent(2, 7, "b", "b1")]);
    // Bounded: the hold ends after SATURATED_HOLD_MAX_MS (1 s) though b's lane still waits.
    const outcome = await Promise.race([
      poll.then(() => "polled"),
      new Promise((resolve) => setTimeout(() => resolve("still held after 5 s"), 5_000)),
    ]);
    expect(outcome).toBe("polled");
    expect(started).toEqual(["a1"]);
  });
});
