// A streamed answer outliving the server's edit window goes on in a new message: before the window
// closes (the window read from the registration or a realm event), or on the edit-window refusal.
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import { definePlugin } from "../../src/bot/plugin.js";
import type { StreamResult } from "../../src/context/stream.js";

/** A text source the test feeds chunk by chunk. */
function feed() {
  const chunks: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  return {
    push(chunk: string) {
      chunks.push(chunk);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
    async *source(): AsyncIterable<string> {
      for (;;) {
        if (chunks.length > 0) yield chunks.shift()!;
        else if (ended) return;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}

type Feed = ReturnType<typeof feed>;

function tellPlugin(feeds: Feed[], results: StreamResult[]) {
  return definePlugin({
    name: "tell",
    setup(bot) {
      bot.command("tell", { description: "streams what the test feeds" }, async (ctx) => {
        const f = feed();
        feeds.push(f);
        results.push(await ctx.stream(f.source(), { minEditIntervalMs: 0 }));
      });
    },
  });
}

/** Waits (bounded) until `check` holds. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("a streamed answer longer than the edit window", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  /** Starts `!tell`, shows "one", lets `seconds` of fake time pass, then streams " two". */
  async function streamAcross(seconds: number, feeds: Feed[]): Promise<void> {
    await t!.send("!tell");
    await until(() => feeds.length === 1, "the handler");
    feeds[0]!.push("one");
    await until(() => t!.botMessages().some((m) => m.content === "one"), "the first words");
    await t!.clock.advance(seconds * 1000);
    feeds[0]!.push(" two");
    await until(() => t!.botMessages().some((m) => /two/.test(m.content)), "the later words");
    feeds[0]!.end();
  }

  it("rolls over before the window the registration announced closes", async () => {
    const feeds: Feed[] = [];
    const results: StreamResult[] = [];
    t = await createTestBot({
      plugins: [tellPlugin(feeds, results)],
      sandbox: { settings: { messageContentEditLimitSeconds: 120 } },
    });
    // 100 s: within the server's window (and grace), past the bot's margin (120 - 30 s).
    await streamAcross(100, feeds);
    expect((await t.reply()).content).toBe("one");
    expect((await t.reply()).content).toBe("two");
    expect(results[0]).toMatchObject({ complete: true, rollovers: 1, text: "one two" });
    expect(t.errors()).toEqual([]);
  }, 30_000);

  it("follows a window changed by a realm event", async () => {
    const feeds: Feed[] = [];
    const results: StreamResult[] = [];
    t = await createTestBot({ plugins: [tellPlugin(feeds, results)] });
    await t.clientFor("olivia").realm.update({ message_content_edit_limit_seconds: 100 });
    await t.clock.advance(1000);
    await new Promise((r) => setTimeout(r, 200));
    // 80 s: the server would still take the edit, but the new window less its margin has passed.
    await streamAcross(80, feeds);
    expect((await t.reply()).content).toBe("one");
    expect((await t.reply()).content).toBe("two");
    expect(results[0]!.rollovers).toBe(1);
  }, 30_000);

  it("rolls over when the server refuses an edit as past the window", async () => {
    const feeds: Feed[] = [];
    const results: StreamResult[] = [];
    t = await createTestBot({ plugins: [tellPlugin(feeds, results)] });
    // Changed behind the bot's back (no event): the bot still reckons with 600 s.
    t.realm.settings.messageContentEditLimitSeconds = 60;
    await streamAcross(200, feeds);
    const first = await t.reply();
    expect(first.content).toBe("one");
    expect(first.edits).toBeUndefined();
    expect((await t.reply()).content).toBe("two");
    expect(results[0]).toMatchObject({ complete: true, rollovers: 1 });
    expect(t.errors()).toEqual([]);
  }, 30_000);

  it("keeps a stream of many windows whole across its messages", async () => {
    const feeds: Feed[] = [];
    const results: StreamResult[] = [];
    t = await createTestBot({
      plugins: [tellPlugin(feeds, results)],
      sandbox: { settings: { messageContentEditLimitSeconds: 600 } },
    });
    await t.send("!tell");
    await until(() => feeds.length === 1, "the handler");
    const words: string[] = [];
    // Seventy minutes of answer, a word every five: seven windows of 600 s.
    for (let i = 0; i < 14; i++) {
      const word = `${i === 0 ? "" : " "}w${i}`;
      words.push(word);
      feeds[0]!.push(word);
      const shown = words.join("").trim();
      await until(
        () =>
          t!
            .botMessages()
            .map((m) => m.content)
            .join(" ")
            .replace(/\s+/g, " ") === shown,
        `word ${i}`,
      );
      await t.clock.advance(300_000);
    }
    feeds[0]!.end();
    await t.settle();
    const result = results[0]!;
    expect(result.complete).toBe(true);
    expect(result.rollovers).toBeGreaterThanOrEqual(6);
    for (const id of result.messageIds) {
      const m = t.realm.message(id)!;
      const lastEdit = m.lastEditTimestamp ?? m.timestamp;
      expect(lastEdit - m.timestamp).toBeLessThanOrEqual(600);
    }
    expect(t.errors()).toEqual([]);
  }, 60_000);
});
