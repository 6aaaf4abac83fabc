// A full garbage collection between bursts of messages leaves the dispatch path's optimized code alone.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Three bursts of `!add` commands through a started bot, each followed by a full collection with
 * no message in flight (as when a bot waits for its next poll); V8 prints a line for each
 * optimized function the collections throw away because an object its code embeds died.
 */
const script = `
import { definePlugin, arg } from "./src/index.ts";
import { startInMemoryBot, messageEvent } from "./test/helpers/in-memory-bot.ts";
let handled = 0;
const plugin = definePlugin({
  name: "shapes",
  setup(bot) {
    bot.use(async (ctx, next) => { ctx.state.seen = true; await next(); });
    bot.command("ping", {}, (ctx) => ctx.reply("pong"));
    bot.command(
      "add",
      { args: { a: arg.number(), b: arg.number() }, options: { note: arg.string().optional() } },
      (ctx) => { if (ctx.command.args.a >= 0) handled++; },
    );
  },
});
const { events, close } = await startInMemoryBot(plugin);
let id = 1;
const wait = () => new Promise((r) => setTimeout(r, 5));
for (let burst = 0; burst < 3; burst++) {
  for (let sent = 0; sent < 15000; sent += 100) {
    const batch = [];
    for (let k = 0; k < 100; k++, id++)
      batch.push(messageEvent(id, 1 + (id % 20), "topic " + (id % 10), "!add " + (id % 97) + " " + (id % 13) + " --note w"));
    await events.push(batch);
  }
  for (let tries = 0; handled < id - 1 && tries < 2000; tries++) await wait();
  // Let the concurrent compiler finish what the burst made hot before the collection.
  await new Promise((r) => setTimeout(r, 300));
  globalThis.gc();
}
await close();
console.log("HANDLED " + handled + " of " + (id - 1));
`;

describe("kept shapes", () => {
  it("a full collection between bursts throws away (next to) none of the dispatch path's code", () => {
    const run = spawnSync(
      process.execPath,
      ["--expose-gc", "--trace-deopt", "--import", "tsx", "--input-type=module", "-e", script],
      { cwd: fileURLToPath(new URL("../..", import.meta.url)), encoding: "utf8", timeout: 60_000 },
    );
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("HANDLED 45000 of 45000");
    // V8 traced its deoptimizations in the format read below (warm-up always has a few bailouts).
    expect(run.stdout).toContain("[bailout (kind: ");
    const thrownAway = run.stdout
      .split("\n")
      .filter((line) => line.includes("reason: weak objects"))
      .map((line) => /<SharedFunctionInfo ?(.*?)>\) \(opt id/.exec(line)?.[1] || "(anonymous)");
    // Without the kept shapes: 59 over the three collections (ClaimedMessage, MessageTurn,
    // MessageContextObject, SenderArgEnv, the lanes' Fifo and the functions that inlined them);
    // with them, 4 (Node's own: its message port, on close).
    expect(thrownAway.length, thrownAway.join(", ")).toBeLessThanOrEqual(8);
  });
});
