// The cassette recorder's cost: the in-memory bot answering commands, with `record:` on and without it.
// Each contender runs in a fresh process of its own (`bench/record.ts --only plain|recording`), the two alternating.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createBot } from "../src/bot/bot.js";
import { createClient } from "../src/client/client.js";
import { definePlugin } from "../src/bot/plugin.js";
import { Recorder } from "../src/record/recorder.js";
import { main, median, messageEvent, progress, startInMemoryBot, until } from "./lib.js";

const WARMUP = 4_000;
const MESSAGES = 10_000;
const BATCH = 100;
const ROUNDS = 7;
/** The goal (issue 33): recording costs at most this share of the bot's own CPU per command. */
const GOAL_SHARE = 0.1;

const CONTENDERS = ["plain", "recording"] as const;
type Contender = (typeof CONTENDERS)[number];

interface Figures {
  /** Process CPU (user + system) µs per answered command over the timed commands. */
  cpuUs: number;
  /** Cassette bytes per timed command (0 without a recorder). */
  bytes: number;
}

const echo = definePlugin({
  name: "echo",
  setup(bot) {
    bot.command("echo", { description: "Says it back" }, (ctx) =>
      ctx.reply(`echo from ${ctx.sender.fullName}`),
    );
  },
});

/** One contender in this process: a bot (recording to `cassette` or not) warmed up, then timed. */
async function only(name: Contender, dir: string): Promise<void> {
  const cassette = join(dir, `${name}-${process.pid}.jsonl`);
  const recorder =
    name === "recording"
      ? new Recorder({ path: cassette, site: "http://bench.invalid", secrets: ["bench-key"] })
      : undefined;
  const make: typeof createClient = (options) =>
    createClient({ ...options, ...(recorder && { wrapTransport: (t) => recorder.wrap(t) }) });
  const { events, sent, close } = await startInMemoryBot(echo, { createBot, createClient: make });
  const answer = async (from: number, count: number): Promise<void> => {
    for (let i = from; i < from + count; i += BATCH) {
      const batch = [];
      for (let n = i; n < i + BATCH; n++)
        batch.push(
          messageEvent(n + 1, 7, `topic ${n % 10}`, `!echo hello ${n} from mia@example.com`),
        );
      await events.push(batch);
    }
    await until(() => sent() >= from + count, 120_000, "every reply sent");
    // The recording is written off the request path: its writing counts too.
    await recorder?.flush();
  };
  await answer(0, WARMUP);
  const bytesBefore = recorder ? statSync(cassette).size : 0;
  const before = process.cpuUsage();
  await answer(WARMUP, MESSAGES);
  const used = process.cpuUsage(before);
  const bytes = recorder ? statSync(cassette).size - bytesBefore : 0;
  await close();
  await recorder?.close();
  const figures: Figures = { cpuUs: (used.user + used.system) / MESSAGES, bytes: bytes / MESSAGES };
  process.stdout.write(`${JSON.stringify({ record: figures })}\n`);
  process.exit(0);
}

/** Runs one contender in a fresh process and reads its figures. */
function inOwnProcess(name: Contender, dir: string): Promise<Figures> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", self, "--only", name, dir], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.once("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith('{"record":'));
      if (code === 0 && line) resolve((JSON.parse(line) as { record: Figures }).record);
      else reject(new Error(`record --only ${name} failed (exit ${code})\n${out}`));
    });
  });
}

const onlyAt = process.argv.indexOf("--only");
if (onlyAt !== -1) await only(process.argv[onlyAt + 1] as Contender, process.argv[onlyAt + 2]!);
else
  await main(async () => {
    const dir = mkdtempSync(join(tmpdir(), "topicbot-bench-record-"));
    const figures = new Map<Contender, Figures[]>(CONTENDERS.map((c) => [c, []]));
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        // Alternating, the first contender rotating, each in a fresh process of its own.
        const order = round % 2 === 1 ? CONTENDERS : [...CONTENDERS].reverse();
        for (const name of order) figures.get(name)!.push(await inOwnProcess(name, dir));
        const [p, r] = CONTENDERS.map((c) => figures.get(c)!.at(-1)!.cpuUs);
        progress(`round ${round}/${ROUNDS}: ${p!.toFixed(1)} µs plain, ${r!.toFixed(1)} recording`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const without = median(figures.get("plain")!.map((f) => f.cpuUs));
    const withRecorder = median(figures.get("recording")!.map((f) => f.cpuUs));
    const bytes = median(figures.get("recording")!.map((f) => f.bytes));
    const cost = withRecorder - without;
    return {
      name: "record",
      title: "Recording a cassette (`record:`)",
      method: `The in-memory bot (events pushed in, replies to a MockAgent) answers \`!echo\` commands in batches of ${BATCH}: ${WARMUP.toLocaleString("en")} to warm up, then ${MESSAGES.toLocaleString("en")} timed. Each contender runs in a fresh Node process of its own (\`bench/record.ts --only <name>\`): the bot without a recorder, and the same bot recording every request and answer to a cassette (sanitized: emails aliased, names replaced, the key scrubbed), the file's writing included (flushed before the clock stops). ${ROUNDS} rounds, the two alternating with the first rotating; no \`gc()\` anywhere; process CPU (user + system) µs per answered command, medians. Goal (issue 33): recording within ${GOAL_SHARE * 100}% of the bot's own CPU per command.`,
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
          value: bytes,
          baseline: null,
          unit: "B",
          better: "lower",
        },
      ],
      checks: [
        {
          what: `recording costs at most ${GOAL_SHARE * 100}% of the bot's CPU per command (${cost.toFixed(1)} µs on ${without.toFixed(1)}, ${((cost / without) * 100).toFixed(0)}%)`,
          ok: cost <= GOAL_SHARE * without,
          goal: true,
        },
      ],
    };
  });
