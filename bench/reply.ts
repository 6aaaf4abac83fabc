// Benchmark: `bot start` (file storage) echoing against the sandbox, beside a bare undici poll + POST echo loop.
import { spawn, type ChildProcess } from "node:child_process";
import { subscribe, unsubscribe as unsubscribeChannel } from "node:diagnostics_channel";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Pool } from "undici";
import { startSandbox, type Sandbox } from "../src/sandbox/server.js";
import {
  compileToDist,
  main,
  median,
  percentile,
  progress,
  sleep,
  until,
  type Row,
} from "./lib.js";
import { sandboxServerLines } from "../test/helpers/process.js";

const USERS = 20;
const TOPICS = 10;
/** Issue 17 goal 2 measures latency at this fixed rate. */
const RATE = 200;
const RATE_SECONDS = 5;
/**
 * Seconds at the fixed rate before the measured ones. Going from saturation to one command at a
 * time makes other code hot (a lane made and dropped per command, a poll per event), and V8
 * optimizes it over the first seconds: `--trace-opt` showed the bot compiling some 40 functions
 * in its first 5 s at 200/s, its compiler threads 100-120 µs per reply then, 10-30 after. The
 * goal is judged on a bot running at that rate, and the first seconds are a row of their own.
 */
const RATE_WARMUP_SECONDS = Number(process.env.REPLY_RATE_WARMUP ?? 5);
/** Commands in flight at saturation: each sender waits for the reply before its next command. */
const IN_FLIGHT = 64;
/** Commands of the measured saturation phase: at 6,000, /proc's 10 ms ticks give CPU per reply to ~2 µs. */
const SATURATION = Number(process.env.REPLY_SATURATION ?? 6_000);
const ROUNDS = Number(process.env.REPLY_ROUNDS ?? 3);
/** Commands answered at saturation right after start, before the early figure is taken. */
const FIRST_WARMUP = 300;
/** Commands of the early saturation phase (right after start: the optimizing compiler still at work). */
const EARLY = 2_000;
/**
 * Commands each contender answers (at saturation, the early phase included) before the fixed rate
 * and the measured saturation. The bot's optimizing compiler is still at work on other threads for
 * a few thousand replies after start, and its CPU counts in CPU per reply (about a fifth of it at
 * saturation after 300, next to none after 5,000); the bare loop, far less code, is done almost at
 * once. Issue 17 asks what a reply costs a running bot, so the goal is judged after this warm-up,
 * and the early figure is shown beside it.
 */
const WARMUP = Math.max(Number(process.env.REPLY_WARMUP ?? 5_000), FIRST_WARMUP + EARLY);
/** Set to a folder to write a CPU profile of each bot and bare-loop process (`node --cpu-prof`). */
const PROFILE_DIR = process.env.REPLY_PROFILE;
/** Sampling interval of those profiles in µs (`--cpu-prof-interval`); V8's default is 1000. */
const PROFILE_FLAGS = process.env.REPLY_PROFILE_INTERVAL
  ? ["--cpu-prof", `--cpu-prof-interval=${process.env.REPLY_PROFILE_INTERVAL}`]
  : ["--cpu-prof"];

/** Set to `hold` or `grow` to run the bot with that `memory.youngGeneration` (A/B runs of the setting). */
const YOUNG_GENERATION = process.env.REPLY_YOUNG_GENERATION;

/** Set to another checkout's root to measure its built bot instead (A/B runs of a change). */
const BOT_ROOT = process.env.REPLY_BOT_ROOT
  ? pathToFileURL(`${process.env.REPLY_BOT_ROOT.replace(/\/+$/, "")}/`)
  : new URL("../", import.meta.url);
const bin = fileURLToPath(new URL("bin/bot.js", BOT_ROOT));
/** What the echo plugin imports as `topicbot`: the package's own entry (the bundle; tsc's output in older checkouts). */
const dist = pathToFileURL(
  fileURLToPath(
    new URL(
      existsSync(fileURLToPath(new URL("dist/bundle/index.js", BOT_ROOT)))
        ? "dist/bundle/index.js"
        : "dist/src/index.js",
      BOT_ROOT,
    ),
  ),
).href;

interface Account {
  email: string;
  apiKey: string;
}

/** One contender's figures in one round. */
interface Round {
  /** Fixed rate: latency of each command, from its POST leaving to the reply being stored. */
  fixedLatencies: number[];
  /** Fixed rate: the echo process's CPU per reply (ms). */
  fixedCpuPerReply: number;
  /** Fixed rate, its first RATE_WARMUP_SECONDS right after saturation: CPU per reply (ms). */
  fixedEarlyCpuPerReply: number;
  /** Saturation right after start (EARLY commands after FIRST_WARMUP): CPU per reply (ms). */
  earlyCpuPerReply: number;
  /** Saturation: replies per second with IN_FLIGHT commands outstanding. */
  throughput: number;
  /** Saturation: the echo process's CPU per reply (ms). */
  cpuPerReply: number;
  /** Saturation: long polls (GET /events) the echo process made per reply. */
  pollsPerReply: number;
  /** Saturation: the echo process's CPU (all its threads) over the phase's wall time, in cores. */
  echoBusy: number;
  /** Saturation: the benchmark's own process (sandbox + load generator): CPU of all its threads, in cores. */
  sandboxBusy: number;
  /**
   * Saturation: the event-loop utilisation of that process's main thread, 0–1: the share of the
   * time the sandbox and load generator were running rather than waiting for I/O. This, not the
   * process's CPU (which adds V8's GC and compiler threads), says whether they held the echo back.
   */
  sandboxLoop: number;
  /** Saturation: its start and end on the monotonic clock in µs, the clock of a CPU profile's timestamps. */
  window: [number, number];
  /** The fixed-rate phase on the same clock, for `reply-attribution.ts --fixed`. */
  fixedWindow: [number, number];
  /** CPU per reply (ms) of the echo's main thread (its event loop) and of its other threads (GC, compiler), per phase. */
  threads: { fixed: ThreadSplit; saturation: ThreadSplit };
}

interface ThreadSplit {
  main: number;
  others: number;
}

/** Sends channel messages as the given users with a bare undici pool: the load generator. */
function sender(sandbox: Sandbox) {
  const pool = new Pool(sandbox.url, { connections: IN_FLIGHT, pipelining: 1 });
  const auth = new Map<string, string>();
  return {
    async send(user: Account, channel: string, topic: string, content: string): Promise<void> {
      let header = auth.get(user.email);
      if (!header) {
        header = `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString("base64")}`;
        auth.set(user.email, header);
      }
      const res = await pool.request({
        path: "/api/v1/messages",
        method: "POST",
        headers: { authorization: header, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ type: "channel", to: channel, topic, content }).toString(),
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`POST /messages: ${res.statusCode} ${text}`);
    },
    close: () => pool.close(),
  };
}

/** CPU time (user + system, all threads) a process has used, in ms, from /proc (Linux). */
/**
 * CPU time (user + system, ms) of a process's main thread (its event loop: the thread whose ID is
 * the process's) and of all its other threads (V8's GC helpers and compiler, libuv's pool), from
 * /proc/<pid>/task. A profile samples the main thread only; this says how much lies elsewhere.
 */
function threadCpuMs(pid: number): ThreadSplit {
  const split = { main: 0, others: 0 };
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
    } catch {
      continue; // a thread that ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    if (task === String(pid)) split.main += ms;
    else split.others += ms;
  }
  return split;
}

const perReply = (before: ThreadSplit, after: ThreadSplit, replies: number): ThreadSplit => ({
  main: (after.main - before.main) / replies,
  others: (after.others - before.others) / replies,
});

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 a second).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** CPU time of this process (the sandbox and the load generator), in ms. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Spawns `args` and waits for a stdout line matching `ready`. */
async function spawnReady(args: string[], ready: RegExp, what: string): Promise<ChildProcess> {
  const proc = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, LOG_LEVEL: "info" },
  });
  let out = "";
  proc.stdout!.on("data", (chunk: Buffer) => {
    if (out.length < 100_000) out += chunk.toString();
  });
  await until(() => ready.test(out) || proc.exitCode !== null, 30_000, `${what} to start`);
  if (proc.exitCode !== null) throw new Error(`${what} exited with ${proc.exitCode}:\n${out}`);
  return proc;
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGTERM");
  await exited;
}

/** The contenders, each measured in its own fresh process against its own fresh sandbox. */
const CONTENDERS = ["bot", "recording", "concurrent", "lanes"] as const;
type Contender = (typeof CONTENDERS)[number];

/** A fresh sandbox with the load generator's users, and the count of what it served and stored. */
async function arena() {
  const sandbox = await startSandbox({ heartbeatSeconds: 30 });
  const { realm } = sandbox;
  const general = realm.channelByName("general")!;
  const users: Account[] = Array.from({ length: USERS }, (_, i) => {
    const u = realm.addUser({
      email: `loader${i}@${realm.settings.host}`,
      fullName: `Loader ${i}`,
      password: null,
      role: 400,
      isBot: false,
      botType: null,
      botOwnerId: null,
    });
    realm.subscribe(general, u.userId);
    return { email: u.email, apiKey: u.apiKey };
  });
  // Long polls the sandbox served (GET /events), counted as they arrive: how many replies one poll
  // carried is most of what separates a loop that polls again at once from one that waits.
  const counts = { polls: 0, extraReplies: 0, commands: 0 };
  // One arena at a time lives in this process: every server request seen is its sandbox's.
  const onRequest = (m: unknown) => {
    const req = (m as { request: { method?: string; url?: string } }).request;
    if (req.method === "GET" && req.url?.startsWith("/api/v1/events")) counts.polls++;
  };
  subscribe("http.server.request.start", onRequest);
  // Replies, by the number they echo: when they reached the server; waiters for each.
  const repliedAt = new Map<number, number>();
  const waiting = new Map<number, () => void>();
  const unsubscribe = realm.onMessage((m) => {
    if (m.senderId !== sandbox.bot.userId) return;
    const match = /^echo (\d+)$/.exec(m.content);
    if (!match) return;
    const n = Number(match[1]);
    if (repliedAt.has(n)) {
      counts.extraReplies++;
      return;
    }
    repliedAt.set(n, performance.now());
    waiting.get(n)?.();
    waiting.delete(n);
  });
  const replyTo = (n: number): Promise<void> =>
    repliedAt.has(n) ? Promise.resolve() : new Promise((r) => waiting.set(n, r));
  const load = sender(sandbox);
  const command = (i: number, n: number) => {
    counts.commands++;
    return load.send(users[i % USERS]!, "general", `topic ${i % TOPICS}`, `!echo ${n}`);
  };
  return {
    sandbox,
    counts,
    repliedAt,
    replyTo,
    command,
    async close() {
      unsubscribe();
      unsubscribeChannel("http.server.request.start", onRequest);
      await load.close();
      await sandbox.close();
    },
  };
}

type Arena = Awaited<ReturnType<typeof arena>>;

/** `count` commands at a fixed rate, sent whether or not earlier ones were answered. */
async function fixedRate(a: Arena, count: number): Promise<number[]> {
  const sentAt = new Map<number, number>();
  const t0 = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const n = a.counts.commands;
    sentAt.set(n, performance.now());
    inflight.push(a.command(i, n).then(() => a.replyTo(n)));
  }
  await withTimeout(Promise.all(inflight), 60_000, `${count} replies at ${RATE}/s`);
  return [...sentAt].map(([n, at]) => a.repliedAt.get(n)! - at);
}

/** `count` commands with IN_FLIGHT outstanding: each sender waits for the reply, then sends again. */
async function saturate(a: Arena, count: number): Promise<number> {
  let issued = 0;
  const t0 = performance.now();
  await withTimeout(
    Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (issued < count) {
          const i = issued++;
          const n = a.counts.commands;
          await a.command(i, n);
          await a.replyTo(n);
        }
      }),
    ),
    120_000,
    `${count} replies with ${IN_FLIGHT} in flight`,
  );
  return count / ((performance.now() - t0) / 1000);
}

/** One contender, one round: warm-up, fixed rate, saturation, with CPU read around each. */
async function measure(a: Arena, proc: ChildProcess): Promise<Round> {
  await saturate(a, FIRST_WARMUP);
  const earlyCpu0 = cpuMs(proc.pid!);
  await saturate(a, EARLY);
  const earlyCpuPerReply = (cpuMs(proc.pid!) - earlyCpu0) / EARLY;
  await saturate(a, WARMUP - FIRST_WARMUP - EARLY);
  const rateWarmup = RATE * RATE_WARMUP_SECONDS;
  const fixedEarlyCpu0 = cpuMs(proc.pid!);
  if (rateWarmup > 0) await fixedRate(a, rateWarmup);
  const fixedEarlyCpuPerReply =
    rateWarmup > 0 ? (cpuMs(proc.pid!) - fixedEarlyCpu0) / rateWarmup : Number.NaN;
  const fixedCpu0 = cpuMs(proc.pid!);
  const fixedThreads0 = threadCpuMs(proc.pid!);
  const fixedStart = monotonicMicros();
  const fixedLatencies = await fixedRate(a, RATE * RATE_SECONDS);
  const fixedWindow: [number, number] = [fixedStart, monotonicMicros()];
  const fixedCpuPerReply = (cpuMs(proc.pid!) - fixedCpu0) / (RATE * RATE_SECONDS);
  const fixedThreads = perReply(fixedThreads0, threadCpuMs(proc.pid!), RATE * RATE_SECONDS);
  await sleep(200);
  const cpu0 = cpuMs(proc.pid!);
  const threads0 = threadCpuMs(proc.pid!);
  const own0 = ownCpuMs();
  const wall0 = performance.now();
  const loop0 = performance.eventLoopUtilization();
  const polls0 = a.counts.polls;
  const start = monotonicMicros();
  const throughput = await saturate(a, SATURATION);
  const window: [number, number] = [start, monotonicMicros()];
  const pollsPerReply = (a.counts.polls - polls0) / SATURATION;
  const sandboxBusy = (ownCpuMs() - own0) / (performance.now() - wall0);
  const sandboxLoop = performance.eventLoopUtilization(loop0).utilization;
  const echoCpu = cpuMs(proc.pid!) - cpu0;
  const threads = {
    fixed: fixedThreads,
    saturation: perReply(threads0, threadCpuMs(proc.pid!), SATURATION),
  };
  const cpuPerReply = echoCpu / SATURATION;
  const echoBusy = echoCpu / (performance.now() - wall0);
  return {
    earlyCpuPerReply,
    fixedLatencies,
    fixedCpuPerReply,
    fixedEarlyCpuPerReply,
    throughput,
    cpuPerReply,
    pollsPerReply,
    echoBusy,
    sandboxBusy,
    sandboxLoop,
    window,
    fixedWindow,
    threads,
  };
}

/** The bot as users run it: the built `bot start`, file storage, an `!echo <n>` plugin. */
async function startBot(
  sandbox: Sandbox,
  dir: string,
  round: number,
  recording: boolean,
): Promise<ChildProcess> {
  const plugin = join(dir, "echo.mjs");
  writeFileSync(
    plugin,
    [
      `import { arg, definePlugin } from ${JSON.stringify(dist)};`,
      "export default definePlugin({",
      '  name: "echo",',
      "  setup(bot) {",
      '    bot.command("echo", { description: "Answers with the number", args: { n: arg.number() } },',
      "      (ctx) => ctx.reply(`echo ${ctx.command.args.n}`));",
      "  },",
      "});",
      "",
    ].join("\n"),
  );
  const config = join(dir, "bot.config.yaml");
  writeFileSync(
    config,
    [
      ...sandboxServerLines(sandbox),
      "logging: { level: info, format: json }",
      // Many users at 200 commands/s is the load, not abuse: the per-user limit would refuse it.
      "rateLimit: false",
      "storage: { type: file, path: bot.json }",
      // Issue 33: the recorder as users turn it on (sanitized, the default), beside the same bot without it.
      ...(recording ? ["record: { path: cassette.jsonl }"] : []),
      ...(YOUNG_GENERATION ? [`memory: { youngGeneration: ${YOUNG_GENERATION} }`] : []),
      "plugins:",
      "  - ./echo.mjs",
      "",
    ].join("\n"),
  );
  const profile = PROFILE_DIR
    ? [
        ...PROFILE_FLAGS,
        `--cpu-prof-dir=${PROFILE_DIR}`,
        `--cpu-prof-name=${recording ? "recording" : "bot"}-${round}.cpuprofile`,
      ]
    : [];
  return spawnReady([...profile, bin, "start", "-c", config], /"msg":"ready"/, "bot start");
}

/** A bare bot (`bench/bare-echo.ts`, compiled to plain JavaScript), in `lanes` or `concurrent` mode. */
function startBare(
  sandbox: Sandbox,
  bareJs: string,
  mode: "lanes" | "concurrent",
  round: number,
): Promise<ChildProcess> {
  const profile = PROFILE_DIR
    ? [
        ...PROFILE_FLAGS,
        `--cpu-prof-dir=${PROFILE_DIR}`,
        `--cpu-prof-name=${mode}-${round}.cpuprofile`,
      ]
    : [];
  return spawnReady(
    [...profile, bareJs, sandbox.url, sandbox.bot.email, sandbox.bot.apiKey, mode],
    /ready/,
    `bare echo bot (${mode})`,
  );
}

void main(async () => {
  const bareJs = await compileToDist("bare-echo");
  const rounds: Record<Contender, Round[]> = { bot: [], recording: [], concurrent: [], lanes: [] };
  let commands = 0;
  let answered = 0;
  let extraReplies = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternating, each contender first in turn, so that no one always meets the machine's same moment.
    const order = CONTENDERS.map((_, i) => CONTENDERS[(i + round - 1) % CONTENDERS.length]!);
    for (const who of order) {
      const a = await arena();
      const dir = mkdtempSync(join(tmpdir(), "topicbot-bench-reply-"));
      try {
        progress(`reply round ${round}/${ROUNDS}: ${LABEL[who]}`);
        const proc =
          who === "bot" || who === "recording"
            ? await startBot(a.sandbox, dir, round, who === "recording")
            : await startBare(a.sandbox, bareJs, who, round);
        try {
          rounds[who].push(await measure(a, proc));
          progress(`  ${who}: ${roundFigures(rounds[who].at(-1)!)}`);
        } finally {
          await stop(proc);
        }
        commands += a.counts.commands;
        answered += a.repliedAt.size;
        extraReplies += a.counts.extraReplies;
      } finally {
        await a.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  const bot = rounds.bot;
  if (PROFILE_DIR) {
    // Where the saturation phase lies in each profile, so `bench/reply-attribution.ts` can cut it out.
    const phases = (rs: Round[]) =>
      rs.map((r) => ({
        window: r.window,
        replies: SATURATION,
        fixed: { window: r.fixedWindow, replies: RATE * RATE_SECONDS },
      }));
    writeFileSync(
      join(PROFILE_DIR, "saturation.json"),
      JSON.stringify(
        {
          bot: phases(bot),
          bare: phases(rounds.concurrent),
          lanes: phases(rounds.lanes),
          recording: phases(rounds.recording),
        },
        null,
        2,
      ),
    );
  }

  const med = (rs: Round[], f: (r: Round) => number) => median(rs.map(f));
  const p = (q: number) => (r: Round) => percentile(r.fixedLatencies, q);
  const figures: [string, (r: Round) => number, string, "higher" | "lower"][] = [
    [`fixed ${RATE}/s: latency p50`, p(50), "ms", "lower"],
    [`fixed ${RATE}/s: latency p95`, p(95), "ms", "lower"],
    [`fixed ${RATE}/s: latency p99`, p(99), "ms", "lower"],
    [`fixed ${RATE}/s: CPU per reply`, (r) => r.fixedCpuPerReply, "ms", "lower"],
    [
      `fixed ${RATE}/s, its first ${RATE_WARMUP_SECONDS} s right after saturation: CPU per reply`,
      (r) => r.fixedEarlyCpuPerReply,
      "ms",
      "lower",
    ],
    [`fixed ${RATE}/s: of it, the main thread`, (r) => r.threads.fixed.main, "ms", "lower"],
    [
      `fixed ${RATE}/s: of it, other threads (GC, compiler)`,
      (r) => r.threads.fixed.others,
      "ms",
      "lower",
    ],
    ["saturation: throughput", (r) => r.throughput, "msgs/s", "higher"],
    ["saturation: CPU per reply", (r) => r.cpuPerReply, "ms", "lower"],
    ["saturation: of it, the main thread", (r) => r.threads.saturation.main, "ms", "lower"],
    [
      "saturation: of it, other threads (GC, compiler)",
      (r) => r.threads.saturation.others,
      "ms",
      "lower",
    ],
    [
      `saturation right after start (commands ${FIRST_WARMUP}–${FIRST_WARMUP + EARLY}): CPU per reply`,
      (r) => r.earlyCpuPerReply,
      "ms",
      "lower",
    ],
    ["saturation: polls per reply", (r) => r.pollsPerReply, "polls", "lower"],
    [
      "saturation: the echo process busy (its CPU over wall time)",
      (r) => r.echoBusy,
      "cores",
      "lower",
    ],
  ];
  const rows: Row[] = figures.flatMap(([metric, f, unit, better]) =>
    (["concurrent", "lanes"] as const).map((base) => ({
      metric,
      value: med(bot, f),
      baseline: med(rounds[base], f),
      unit,
      better,
      baselineIs: LABEL[base],
    })),
  );
  // Issue 33: what recording a cassette costs the bot as users run it, beside the same bot without.
  const recorded = new Set([
    `fixed ${RATE}/s: latency p50`,
    `fixed ${RATE}/s: latency p99`,
    `fixed ${RATE}/s: CPU per reply`,
    `fixed ${RATE}/s: of it, the main thread`,
    `fixed ${RATE}/s: of it, other threads (GC, compiler)`,
    "saturation: throughput",
    "saturation: CPU per reply",
    "saturation: of it, the main thread",
    "saturation: of it, other threads (GC, compiler)",
  ]);
  for (const [metric, f, unit, better] of figures.filter(([m]) => recorded.has(m)))
    rows.push({
      metric: `recording a cassette, ${metric}`,
      value: med(rounds.recording, f),
      baseline: med(bot, f),
      unit,
      better,
      baselineIs: LABEL.bot,
    });
  const recordingShare = (metric: string) => {
    const r = rows.find((x) => x.metric === `recording a cassette, ${metric}`)!;
    return r.value / r.baseline! - 1;
  };
  // The row of exactly this metric: "…right after saturation: CPU per reply" ends as the
  // saturation row's name does, and once stood in for it in the goal below.
  const ratio = (metric: string, base: "concurrent" | "lanes" = "concurrent") => {
    const r = rows.find((x) => x.metric === metric && x.baselineIs === LABEL[base])!;
    return r.value / r.baseline!;
  };
  const all = Object.values(rounds).flat();
  const busiest = Math.max(...all.map((r) => r.sandboxBusy));
  const busiestLoop = Math.max(...all.map((r) => r.sandboxLoop));
  const busiestEcho = (rs: Round[]) => Math.max(...rs.map((r) => r.echoBusy));
  const pct = (n: number) => `${Math.round(100 * n)}%`;
  const x = (n: number) => `${n.toFixed(2)}×`;
  const tput = ratio("saturation: throughput");
  const cpu = ratio("saturation: CPU per reply");
  const fixedCpu = ratio(`fixed ${RATE}/s: CPU per reply`);
  return {
    name: "reply",
    title: "Reply: `bot start` echoing against the sandbox, beside two bare echo bots",
    method: `The bot as users run it: \`node bin/bot.js start\` (the built CLI) with \`storage: file\` (every reply journals its intent and outcome), \`rateLimit: false\` and a one-command plugin answering \`!echo <n>\` with \`echo <n>\`. Two baselines, \`bench/bare-echo.ts\` compiled to plain JavaScript (no tsx), undici and nothing else: **${LABEL.concurrent}** (answers every command of a poll at once and polls again at once: the simplest fast bot, the baseline of the goals) and **${LABEL.lanes}** (answers in order within each topic, as the bot does, and polls again once a poll's replies are all answered). **${LABEL.recording}** is the same bot with \`record: { path }\` (sanitized, the default), against the bot without it (issue 33): the recorder hands each exchange's text to a thread of its own, which parses, sanitizes and writes it, so its other threads include the recorder's. Each contender runs in its own fresh process against its own fresh sandbox (started in the benchmark's process for that contender alone, closed after it), one after another, the order rotating each round. A load generator (an undici pool) posts \`!echo <n>\` as ${USERS} users in ${TOPICS} topics. Fixed rate: ${RATE} commands/s for ${RATE_SECONDS} s after ${RATE_WARMUP_SECONDS} s at that rate (V8 optimizes what one command at a time makes hot over the first seconds; their CPU per reply is a row of its own), sent whether or not earlier ones were answered; latency is from the command's POST leaving to the reply being stored by the sandbox. Saturation: ${SATURATION.toLocaleString("en")} commands with ${IN_FLIGHT} in flight (each sender waits for its reply before the next). CPU per reply is the echo process's user + system time (/proc, all its threads) over the phase, divided by its replies, and split into its main thread (the event loop) and its other threads (V8's GC helpers and compiler; for the recording bot, the recorder's thread too) from /proc/<pid>/task; polls per reply counts the GET /events the sandbox served over the phase. ${ROUNDS} rounds, each contender after a ${WARMUP.toLocaleString("en")}-command warm-up at saturation (a running bot; CPU per reply right after start, commands ${FIRST_WARMUP}–${FIRST_WARMUP + EARLY}, is shown too). No \`gc()\` anywhere. Each figure is the median of the rounds; compare the ratios, measured in the same run.`,
    rows,
    checks: [
      {
        what: `issue 37 goal 2, CPU per reply at saturation: ${x(cpu)} the concurrent bare bot's (goal ≤ 1.3×)`,
        ok: cpu <= 1.3,
        goal: true,
      },
      {
        what: `issue 37 goal 2, throughput at saturation: ${x(tput)} the concurrent bare bot's (goal ≥ 0.9×)`,
        ok: tput >= 0.9,
        goal: true,
      },
      {
        what: `issue 37 goal 2, CPU per reply at ${RATE}/s: ${x(fixedCpu)} the concurrent bare bot's (goal ≤ 1.2×)`,
        ok: fixedCpu <= 1.2,
        goal: true,
      },
      // Issue 33: the recorder runs on a thread of its own, so what would slow the bot is what it
      // adds to the bot's event loop (the main thread's CPU per reply) and to its answers' latency.
      ...[
        `fixed ${RATE}/s: of it, the main thread`,
        "saturation: of it, the main thread",
        `fixed ${RATE}/s: latency p50`,
      ].map((metric) => {
        const share = recordingShare(metric);
        return {
          what: `issue 33, recording a cassette never slows the bot measurably: it adds ${pct(share)} to the bot's ${metric.replace(":", "").replace("of it, the main thread", "CPU per reply on its main thread (the event loop)")} (goal ≤ 10%)`,
          ok: share <= 0.1,
          goal: true,
        };
      }),
      {
        // Not a goal, and said beside it: the recorder's own work (parsing, sanitizing, writing),
        // done on its thread, is CPU the process spends all the same.
        what: `the recording, all threads counted: it adds ${pct(recordingShare(`fixed ${RATE}/s: CPU per reply`))} to the bot's process CPU per reply at ${RATE}/s and ${pct(recordingShare("saturation: CPU per reply"))} at saturation, nearly all of it on the recorder's thread (\`bench/record.ts\` measures the recorder against an in-memory bot, a far smaller denominator)`,
        ok: true,
      },
      {
        // Not a goal: what the throughput rows measure. On a 2-core machine the sandbox and the load
        // generator need more CPU per reply (two POST /messages) than an echo process spends on a
        // whole reply, so at saturation the sandbox's event loop sets the pace for every contender.
        what: `the echo processes are not what limits throughput: at saturation the bot used at most ${pct(busiestEcho(bot))} of a core, the concurrent bare bot ${pct(busiestEcho(rounds.concurrent))}, the lane-ordered one ${pct(busiestEcho(rounds.lanes))}, while the event loop of the benchmark's process (sandbox + load generator) was up to ${pct(busiestLoop)} busy (${pct(busiest)} of a core with its GC and compiler threads); the throughput rows are the sandbox's ceiling on this machine, and CPU per reply is the echo's own cost`,
        ok: Math.max(...all.map((r) => r.echoBusy)) < 0.9,
      },
      {
        what: `every command got exactly one reply (${commands} commands, ${answered} answered, ${extraReplies} answered twice)`,
        ok: answered === commands && extraReplies === 0,
      },
    ],
  };
});

const LABEL: Record<Contender, string> = {
  bot: "the bot (`bot start`)",
  recording: "the bot recording a cassette (`record:`)",
  concurrent: "the concurrent bare bot",
  lanes: "the lane-ordered bare bot",
};

/** One round's CPU and throughput figures, for the progress lines (the spread the medians hide). */
function roundFigures(r: Round): string {
  return `CPU per reply ${r.cpuPerReply.toFixed(3)} ms at saturation (${r.earlyCpuPerReply.toFixed(3)} right after start), ${r.fixedCpuPerReply.toFixed(2)} ms at ${RATE}/s (${r.fixedEarlyCpuPerReply.toFixed(2)} in its first ${RATE_WARMUP_SECONDS} s); ${Math.round(r.throughput)} replies/s, ${r.pollsPerReply.toFixed(3)} polls per reply`;
}

/** CLOCK_MONOTONIC in µs: what V8 stamps CPU profile samples with, shared by every process on the machine. */
function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Rejects with a message naming `what` if `promise` has not settled within `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
