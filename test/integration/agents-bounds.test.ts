// Bounds that cut an answer say so: a 300,000-character streamed answer ends with a marker, in
// the last message the bound allows or, when the loop guard refuses a continuation, in the one before.
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import { definePlugin } from "../../src/bot/plugin.js";
import { DEFAULT_CUT_MARKER, type StreamResult } from "../../src/context/stream.js";

/** 300 lines of 1,000 characters, yielded as a fast model would. */
async function* longAnswer(): AsyncIterable<string> {
  for (let i = 0; i < 300; i++) {
    await new Promise((r) => setImmediate(r));
    yield `${String(i).padStart(4, "0")} ${"x".repeat(994)}\n`;
  }
}

function streamingPlugin(results: StreamResult[]) {
  return definePlugin({
    name: "long",
    setup(bot) {
      bot.command("long", { description: "A very long answer" }, async (ctx) => {
        results.push(await ctx.stream(longAnswer(), { minEditIntervalMs: 0 }));
      });
    },
  });
}

describe("a streamed answer cut by a bound", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it("a 300k answer stops at the message budget and its last message ends with the marker", async () => {
    const results: StreamResult[] = [];
    t = await createTestBot({ plugins: [streamingPlugin(results)] });
    await t.send("!long");
    for (let i = 0; i < 400 && results.length === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    await t.settle();
    const result = results[0]!;
    expect(result.messageIds).toHaveLength(20);
    expect(result.complete).toBe(false);
    expect(result.cut).toMatch(/longer than 20 messages/);
    const last = t.realm.message(result.messageIds.at(-1)!)!;
    expect(last.content.endsWith(DEFAULT_CUT_MARKER.trim())).toBe(true);
    for (const id of result.messageIds.slice(0, -1))
      expect(t.realm.message(id)!.content).not.toContain("cut here");
  }, 60_000);

  it("a continuation the loop guard refuses ends the answer with the marker in the message before", async () => {
    const results: StreamResult[] = [];
    t = await createTestBot({
      plugins: [streamingPlugin(results)],
      config: { loopGuard: { maxMessages: 4, windowMs: 60_000, pauseMs: 60_000 } },
    });
    await t.send("!long");
    for (let i = 0; i < 400 && results.length === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    await t.settle();
    const result = results[0]!;
    // Three answers the guard lets through, four counted sends, then the refusal.
    expect(result.messageIds.length).toBeLessThan(20);
    expect(result.cut).toMatch(/continuation was refused: .*too many messages/);
    const last = t.realm.message(result.messageIds.at(-1)!)!;
    expect(last.content.endsWith(DEFAULT_CUT_MARKER.trim())).toBe(true);
  }, 60_000);
});
