// Benchmark: memory flat over 100,000 handled events, and a real `bot start` under a 10,000-command burst.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { request } from "undici";
import { arg, definePlugin } from "../src/index.js";
import { sendToChannel } from "../src/sandbox/send.js";
import { startSandbox } from "../src/sandbox/server.js";
import { main, memory, messageEvent, progress, sleep, startInMemoryBot, until } from "./lib.js";
import { sandboxServerLines } from "../test/helpers/process.js";

const EVENTS = 100_000;
const CHECKPOINTS = 4;
const BATCH = 200;
const USERS = 50;
const TOPICS = 1_000;
const REPLY_EVERY = 10;
/** Heap growth between the first checkpoint and the last that still counts as flat, in MiB. */
const FLAT_MIB = 8;
/** Commands in the burst, all in one topic. */
const BURST = 10_000;
/** How long the bot sits idle after "ready" before its idle RSS is read. */
const IDLE_MS = 3_000;
const bin = fileURLToPath(new URL("../bin/bot.js", import.meta.url));
/** Preloaded into the burst's bot: what its memory is made of at the RSS peak (see the file). */
const probe = pathToFileURL(fileURLToPath(new URL("./memory-probe.mjs", import.meta.url))).href;

/** One reading of bench/memory-probe.mjs, in MiB. */
interface MemorySample {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  newSpace: number;
  oldSpace: number;
  largeObjects: number;
  external: number;
}

/** Asks the probe in `pid` for its current sample and its peak since the last ask. */
async function probeSample(
  pid: number,
  file: string,
): Promise<{ now: MemorySample; peak: MemorySample }> {
  await rm(file, { force: true });
  process.kill(pid, "SIGUSR2");
  let text: string | undefined;
  for (let i = 0; i < 500 && text === undefined; i++) {
    text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) await sleep(10);
  }
  if (text === undefined) throw new Error("the memory probe in the bot did not answer");
  return JSON.parse(text) as { now: MemorySample; peak: MemorySample };
}

/** Resident set size of a process from /proc (Linux), in MiB. */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/**
 * A real `bot start` process (the `ping` plugin, no command rate limit, its metrics on a free
 * port) against a sandbox in this process. After it has sat idle, BURST `!ping` commands are
 * stored into one topic at once, without yielding, so that its next poll hands it all of them in
 * one batch (the case of issue 14, where one poll held 9,507 events). Its RSS is sampled from
 * /proc every 10 ms until its metrics count a reply to every command.
 */
async function burst(youngGeneration: "hold" | "grow"): Promise<{
  idle: number;
  peak: number;
  handled: number;
  ms: number;
  atIdle: MemorySample;
  atPeak: MemorySample;
}> {
  const sandbox = await startSandbox({ heartbeatSeconds: 30 });
  const dir = await mkdtemp(join(tmpdir(), "topicbot-bench-burst-"));
  const config = join(dir, "bot.config.yaml");
  await writeFile(
    config,
    [
      ...sandboxServerLines(sandbox),
      "logging: { level: info, format: json }",
      "rateLimit: false",
      "http: { port: 0 }",
      "plugins: [ping]",
      `memory: { youngGeneration: ${youngGeneration} }`,
      "",
    ].join("\n"),
  );
  const probeFile = join(dir, "memory-probe.json");
  const child = spawn(process.execPath, ["--import", probe, bin, "start", "-c", config], {
    env: { ...process.env, LOG_LEVEL: "info", TOPICBOT_MEMORY_PROBE: probeFile },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    await until(() => out.includes('"msg":"ready"'), 30_000, "bot start to be ready");
    const metricsUrl = `${/"url":"(http:[^"]+)"/.exec(out.split("\n").find((l) => l.includes('"msg":"ready"'))!)![1]!.replace(/\/$/, "")}/metrics`;
    // Replies posted, not messages handled: the bot's own replies come back to it as messages and
    // count as handled too, so that count reaches BURST long before the burst is answered.
    const answeredNow = async (): Promise<number> => {
      const text = await (await request(metricsUrl)).body.text();
      return Number(
        /topicbot_api_calls_total\{endpoint="POST \/messages",status="200"\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      );
    };
    await sleep(IDLE_MS);
    const idle = await rssMiB(child.pid!);
    const atIdle = (await probeSample(child.pid!, probeFile)).now;
    let peak = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rssMiB(child.pid!));
        await sleep(10);
      }
    })();
    const { realm } = sandbox;
    const sender = realm.userByEmail(sandbox.user("mia").email)!;
    const channel = realm.channelByName("general")!;
    const started = performance.now();
    for (let i = 0; i < BURST; i++)
      sendToChannel(realm, {
        sender,
        channel,
        topic: "burst",
        content: `!ping`,
        client: "website",
      });
    let handled = 0;
    const deadline = Date.now() + 300_000;
    while ((handled = await answeredNow()) < BURST && Date.now() < deadline) await sleep(100);
    const ms = performance.now() - started;
    sampling = false;
    await sampler;
    const atPeak = (await probeSample(child.pid!, probeFile)).peak;
    return { idle, peak, handled, ms, atIdle, atPeak };
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The burst's RSS at idle and at its peak split up: V8's young generation (new space), its old
 * space, large objects (a whole poll's body once was one), memory outside the JS heap that V8
 * knows of (external: buffers), and the rest of the RSS (code, the runtime's own allocations).
 */
function breakdown(idle: MemorySample, peak: MemorySample) {
  const rest = (s: MemorySample) => s.rss - s.heapTotal - s.external;
  return [
    { name: "V8 new space", idle: idle.newSpace, peak: peak.newSpace },
    { name: "V8 old space", idle: idle.oldSpace, peak: peak.oldSpace },
    { name: "V8 large objects", idle: idle.largeObjects, peak: peak.largeObjects },
    { name: "external (buffers)", idle: idle.external, peak: peak.external },
    { name: "RSS outside these", idle: rest(idle), peak: rest(peak) },
  ];
}

void main(async () => {
  const sink: string[] = [];
  let handled = 0;
  const plugin = definePlugin({
    name: "bench",
    setup(bot) {
      bot.command(
        "echo",
        { description: "Says the text back", args: { n: arg.number(), text: arg.rest() } },
        async (ctx) => {
          const { n, text } = ctx.command.args;
          handled++;
          // One event in REPLY_EVERY goes out through the client; the rest to an in-memory list.
          if (n % REPLY_EVERY === 0) await ctx.reply(`${n}: ${text}`);
          else if (sink.push(text) > 1_000) sink.length = 0;
        },
      );
    },
  });
  const { events, sent, close } = await startInMemoryBot(plugin);
  const atStart = await memory();
  progress(
    `memory: after start rss ${atStart.rss.toFixed(1)} MiB, heap ${atStart.heap.toFixed(1)} MiB`,
  );

  const samples: { events: number; rss: number; heap: number }[] = [];
  let id = 1;
  for (let c = 1; c <= CHECKPOINTS; c++) {
    const upTo = (EVENTS / CHECKPOINTS) * c;
    while (id <= upTo) {
      const batch = [];
      for (let k = 0; k < BATCH && id <= upTo; k++, id++) {
        batch.push(
          messageEvent(id, 1 + (id % USERS), `topic ${id % TOPICS}`, `!echo ${id} some words here`),
        );
      }
      await events.push(batch);
    }
    await until(
      () => handled >= upTo && sent() >= upTo / REPLY_EVERY,
      60_000,
      `${upTo} handled events`,
    );
    const m = await memory();
    samples.push({ events: upTo, ...m });
    progress(
      `memory: after ${upTo} events rss ${m.rss.toFixed(1)} MiB, heap ${m.heap.toFixed(1)} MiB`,
    );
  }
  await close();

  progress(
    `memory: a real \`bot start\` under a burst of ${BURST.toLocaleString("en")} commands in one topic`,
  );
  const b = await burst("hold");
  progress(
    `memory: burst: idle rss ${b.idle.toFixed(1)} MiB, peak ${b.peak.toFixed(1)} MiB, ${b.handled} handled in ${(b.ms / 1000).toFixed(1)} s`,
  );
  const burstRatio = b.peak / b.idle;
  // The same burst with V8 left to size its young generation (\`memory.youngGeneration: grow\`).
  const grown = await burst("grow");
  progress(
    `memory: burst, youngGeneration grow: idle rss ${grown.idle.toFixed(1)} MiB, peak ${grown.peak.toFixed(1)} MiB, young generation ${grown.atPeak.newSpace.toFixed(1)} MiB at the peak`,
  );
  const parts = breakdown(b.atIdle, b.atPeak);
  progress(
    `memory: burst: growth at the peak ${parts.map((p) => `${p.name} ${(p.peak - p.idle).toFixed(1)}`).join(", ")} MiB`,
  );

  const first = samples[0]!;
  const last = samples.at(-1)!;
  const growth = last.heap - first.heap;
  return {
    name: "memory",
    title: "Memory: after start and after 100,000 handled events",
    method: `Burst: a real \`bot start\` process (the \`ping\` plugin, memory storage, no command rate limit, \`memory.youngGeneration: hold\`, the default) against a sandbox in the benchmark's process; after ${IDLE_MS / 1000} s idle, ${BURST.toLocaleString("en")} \`!ping\` commands are stored into one topic at once, so one poll hands the bot all of them (issue 14's case); its RSS is read from /proc every 10 ms until its \`/metrics\` count a reply posted to every command (not messages handled: its own replies come back to it and count there); baseline: its idle RSS just before. Then the same burst into a new \`bot start\` with \`memory.youngGeneration: grow\` (V8's own sizing; young generation ${grown.atIdle.newSpace.toFixed(1)} MiB idle, ${grown.atPeak.newSpace.toFixed(1)} MiB at its peak), against its own idle RSS. A probe preloaded into the bot (\`bench/memory-probe.mjs\`) samples \`process.memoryUsage()\` and V8's heap spaces every 10 ms and reports them at the RSS peak, so the rows after it split the peak up; at the peak: ${parts.map((p) => `${p.name} ${p.peak.toFixed(1)} (idle ${p.idle.toFixed(1)})`).join(", ")} MiB. Flat: ${EVENTS.toLocaleString("en")} \`!echo <n> <text>\` events from ${USERS} users in ${TOPICS.toLocaleString("en")} topics through the whole pipeline, each answered with \`ctx.reply\` through the typed client to an in-memory undici MockAgent. Memory is read after three forced collections (\`--expose-gc\`). Baseline: the same process right after \`bot.start()\`. Flat means the heap grows less than ${FLAT_MIB} MiB between ${first.events.toLocaleString("en")} and ${last.events.toLocaleString("en")} events. Heap after each quarter: ${samples.map((s) => `${s.heap.toFixed(1)}`).join(", ")} MiB.`,
    rows: [
      {
        metric: `bot start: peak RSS during a ${BURST / 1000}k-command burst in one topic`,
        value: b.peak,
        baseline: b.idle,
        unit: "MiB",
        better: "lower",
        baselineIs: "the same process idle",
      },
      {
        metric: `bot start with \`memory.youngGeneration: grow\`: peak RSS during the same burst`,
        value: grown.peak,
        baseline: grown.idle,
        unit: "MiB",
        better: "lower",
        baselineIs: "the same process idle",
      },
      ...parts.map((p) => ({
        metric: `bot start burst: ${p.name} at the RSS peak`,
        value: p.peak,
        baseline: p.idle,
        unit: "MiB",
        better: "lower" as const,
        baselineIs: "the same process idle",
      })),
      {
        metric: "RSS",
        value: last.rss,
        baseline: atStart.rss,
        unit: "MiB",
        better: "lower",
        baselineIs: "after start",
      },
      {
        metric: "heap used",
        value: last.heap,
        baseline: atStart.heap,
        unit: "MiB",
        better: "lower",
        baselineIs: "after start",
      },
      {
        metric: `heap growth ${first.events / 1000}k → ${last.events / 1000}k events`,
        value: growth,
        baseline: null,
        unit: "MiB",
        better: "lower",
      },
    ],
    checks: [
      {
        what: `the burst: all ${BURST.toLocaleString("en")} commands answered (${b.handled}; with grow ${grown.handled})`,
        ok: b.handled >= BURST && grown.handled >= BURST,
      },
      {
        what: `burst memory (issue 17 goal 5, issue 14 item 5): peak RSS ${burstRatio.toFixed(2)}× idle (goal ≤ 1.5×)`,
        ok: burstRatio <= 1.5,
        goal: true,
      },
      {
        what: `every one of ${EVENTS} events was handled, ${EVENTS / REPLY_EVERY} with a reply`,
        ok: handled === EVENTS && sent() === EVENTS / REPLY_EVERY,
      },
      {
        what: `heap growth is flat (${growth.toFixed(2)} MiB < ${FLAT_MIB} MiB from ${first.events} to ${last.events} events)`,
        ok: growth < FLAT_MIB,
      },
    ],
  };
});
