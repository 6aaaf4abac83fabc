// The cassette recorder's cost: the in-memory bot answering commands, with `record:` on and without it.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "../src/client/client.js";
import { definePlugin } from "../src/bot/plugin.js";
import { Recorder } from "../src/record/recorder.js";
import { main, median, messageEvent, progress, startInMemoryBot, until } from "./lib.js";

const MESSAGES = 4_000;
const BATCH = 100;
const ROUNDS = 5;

const echo = definePlugin({
  name: "echo",
  setup(bot) {
    bot.command("echo", { description: "Says it back" }, (ctx) =>
      ctx.reply(`echo from ${ctx.sender.fullName}`),
    );
  },
});

/** CPU µs per answered command of one fresh bot, with a recorder writing to `cassette` or none. */
async function round(cassette: string | undefined, base: number): Promise<number> {
  const recorder = cassette
    ? new Recorder({ path: cassette, site: "http://bench.invalid", secrets: ["bench-key"] })
    : undefined;
  const make: typeof createClient = (options) =>
    createClient({
      ...options,
      ...(recorder && { wrapTransport: (t) => recorder.wrap(t) }),
    });
  const { events, sent, close } = await startInMemoryBot(echo, {
    createBot: (await import("../src/bot/bot.js")).createBot,
    createClient: make,
  });
  const before = process.cpuUsage();
  for (let i = 0; i < MESSAGES; i += BATCH) {
    const batch = [];
    for (let n = i; n < i + BATCH; n++)
      batch.push(
        messageEvent(base + n, 7, `topic ${n % 10}`, `!echo hello ${n} from mia@example.com`),
      );
    await events.push(batch);
  }
  await until(() => sent() >= MESSAGES, 60_000, "every reply sent");
  // The recording is written off the request path: its writing counts too.
  await recorder?.flush();
  const used = process.cpuUsage(before);
  await close();
  await recorder?.close();
  return (used.user + used.system) / MESSAGES;
}

await main(async () => {
  const dir = mkdtempSync(join(tmpdir(), "topicbot-bench-record-"));
  const plain: number[] = [];
  const recorded: number[] = [];
  let bytes = 0;
  try {
    await round(undefined, 1);
    await round(join(dir, "warm.jsonl"), 1);
    for (let r = 0; r < ROUNDS; r++) {
      const base = (r + 1) * 1_000_000;
      plain.push(await round(undefined, base));
      const file = join(dir, `round${r}.jsonl`);
      recorded.push(await round(file, base));
      bytes = statSync(file).size;
      progress(`round ${r + 1}: ${plain.at(-1)!.toFixed(1)} vs ${recorded.at(-1)!.toFixed(1)} µs`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const without = median(plain);
  const withRecorder = median(recorded);
  return {
    name: "record",
    title: "Recording a cassette (`record:`)",
    method: `The in-memory bot (events pushed in, replies to a MockAgent) answers ${MESSAGES} \`!echo\` commands in batches of ${BATCH}, ${ROUNDS} rounds alternating a fresh bot without a recorder and one recording every request and answer to a cassette (sanitized: emails aliased, the key scrubbed), the file's writing included; process CPU µs per answered command, medians.`,
    rows: [
      {
        metric: "CPU per answered command, recording",
        value: withRecorder,
        baseline: without,
        unit: "µs",
        better: "lower",
        baselineIs: "the same bot without recording",
      },
      {
        metric: "cassette bytes per request",
        value: bytes / MESSAGES,
        baseline: null,
        unit: "B",
        better: "lower",
      },
    ],
    checks: [
      {
        what: `recording costs under 25 µs CPU per command (${(withRecorder - without).toFixed(1)} µs measured)`,
        ok: withRecorder - without < 25,
        goal: true,
      },
    ],
  };
});
