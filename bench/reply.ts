// Benchmark: `bot start` (file storage) echoing against the sandbox, beside a bare undici poll + POST echo loop.
import { spawn, type ChildProcess } from "node:child_process";
import { subscribe } from "node:diagnostics_channel";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Pool } from "undici";
import { startSandbox, type Sandbox } from "../src/sandbox/server.js";
import { main, median, percentile, progress, sleep, until, type Row } from "./lib.js";
import { sandboxServerLines } from "../test/helpers/process.js";

const USERS = 20;
const TOPICS = 10;
/** Issue 17 goal 2 measures latency at this fixed rate. */
const RATE = 200;
const RATE_SECONDS = 5;
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

void main(async () => {
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

  /** The bot as users run it: the built `bot start`, file storage, an `!echo <n>` plugin. */
  async function startBot(dir: string, round: number): Promise<ChildProcess> {
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
          `--cpu-prof-name=bot-${round}.cpuprofile`,
        ]
      : [];
    return spawnReady([...profile, bin, "start", "-c", config], /"msg":"ready"/, "bot start");
  }

  const startBare = (round: number) =>
    spawnReady(
      [
        ...(PROFILE_DIR
          ? // The tsx loader thread writes a profile too: each round gets a folder, the largest file is the loop's.
            [...PROFILE_FLAGS, `--cpu-prof-dir=${join(PROFILE_DIR, `bare-${round}`)}`]
          : []),
        "--import",
        "tsx",
        fileURLToPath(new URL("./bare-echo.ts", import.meta.url)),
        sandbox.url,
        sandbox.bot.email,
        sandbox.bot.apiKey,
      ],
      /ready/,
      "bare echo loop",
    );

  // Long polls the sandbox served (GET /events), counted as they arrive: how many replies one poll
  // carried is most of what separates a loop that polls again at once from one that waits.
  let pollsSeen = 0;
  subscribe("http.server.request.start", (m) => {
    const req = (m as { request: { method?: string; url?: string } }).request;
    if (req.method === "GET" && req.url?.startsWith("/api/v1/events")) pollsSeen++;
  });
  // Replies, by the number they echo: when they reached the server; waiters for each.
  const repliedAt = new Map<number, number>();
  const waiting = new Map<number, () => void>();
  let extraReplies = 0;
  const unsubscribe = realm.onMessage((m) => {
    if (m.senderId !== sandbox.bot.userId) return;
    const match = /^echo (\d+)$/.exec(m.content);
    if (!match) return;
    const n = Number(match[1]);
    if (repliedAt.has(n)) {
      extraReplies++;
      return;
    }
    repliedAt.set(n, performance.now());
    waiting.get(n)?.();
    waiting.delete(n);
  });
  const replyTo = (n: number): Promise<void> =>
    repliedAt.has(n) ? Promise.resolve() : new Promise((r) => waiting.set(n, r));
  const load = sender(sandbox);
  let seq = 0;
  const command = (i: number, n: number) =>
    load.send(users[i % USERS]!, "general", `topic ${i % TOPICS}`, `!echo ${n}`);

  /** `count` commands at a fixed rate, sent whether or not earlier ones were answered. */
  async function fixedRate(count: number): Promise<number[]> {
    const sentAt = new Map<number, number>();
    const t0 = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const n = seq++;
      sentAt.set(n, performance.now());
      inflight.push(command(i, n).then(() => replyTo(n)));
    }
    await withTimeout(Promise.all(inflight), 60_000, `${count} replies at ${RATE}/s`);
    return [...sentAt].map(([n, at]) => repliedAt.get(n)! - at);
  }

  /** `count` commands with IN_FLIGHT outstanding: each sender waits for the reply, then sends again. */
  async function saturate(count: number): Promise<number> {
    let issued = 0;
    const t0 = performance.now();
    await withTimeout(
      Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (issued < count) {
            const i = issued++;
            const n = seq++;
            await command(i, n);
            await replyTo(n);
          }
        }),
      ),
      120_000,
      `${count} replies with ${IN_FLIGHT} in flight`,
    );
    return count / ((performance.now() - t0) / 1000);
  }

  /** One contender, one round: warm-up, fixed rate, saturation, with CPU read around each. */
  async function measure(proc: ChildProcess): Promise<Round> {
    await saturate(FIRST_WARMUP);
    const earlyCpu0 = cpuMs(proc.pid!);
    await saturate(EARLY);
    const earlyCpuPerReply = (cpuMs(proc.pid!) - earlyCpu0) / EARLY;
    await saturate(WARMUP - FIRST_WARMUP - EARLY);
    const fixedCpu0 = cpuMs(proc.pid!);
    const fixedLatencies = await fixedRate(RATE * RATE_SECONDS);
    const fixedCpuPerReply = (cpuMs(proc.pid!) - fixedCpu0) / (RATE * RATE_SECONDS);
    await sleep(200);
    const cpu0 = cpuMs(proc.pid!);
    const own0 = ownCpuMs();
    const wall0 = performance.now();
    const loop0 = performance.eventLoopUtilization();
    const polls0 = pollsSeen;
    const start = monotonicMicros();
    const throughput = await saturate(SATURATION);
    const window: [number, number] = [start, monotonicMicros()];
    const pollsPerReply = (pollsSeen - polls0) / SATURATION;
    const sandboxBusy = (ownCpuMs() - own0) / (performance.now() - wall0);
    const sandboxLoop = performance.eventLoopUtilization(loop0).utilization;
    const echoCpu = cpuMs(proc.pid!) - cpu0;
    const cpuPerReply = echoCpu / SATURATION;
    const echoBusy = echoCpu / (performance.now() - wall0);
    return {
      earlyCpuPerReply,
      fixedLatencies,
      fixedCpuPerReply,
      throughput,
      cpuPerReply,
      pollsPerReply,
      echoBusy,
      sandboxBusy,
      sandboxLoop,
      window,
    };
  }

  const bot: Round[] = [];
  const bare: Round[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // A fresh store each round: the bare loop answers as the same account, which a restarted bot
    // would otherwise catch up on.
    const dir = mkdtempSync(join(tmpdir(), "topicbot-bench-reply-"));
    try {
      progress(`reply round ${round}/${ROUNDS}: bot start (file storage)`);
      const proc = await startBot(dir, round);
      try {
        bot.push(await measure(proc));
        progress(`  bot: ${roundFigures(bot.at(-1)!)}`);
      } finally {
        await stop(proc);
      }
      progress(`reply round ${round}/${ROUNDS}: the bare undici poll + POST loop`);
      const floor = await startBare(round);
      try {
        bare.push(await measure(floor));
        progress(`  bare: ${roundFigures(bare.at(-1)!)}`);
      } finally {
        await stop(floor);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (PROFILE_DIR) {
    // Where the saturation phase lies in each profile, so `bench/reply-attribution.ts` can cut it out.
    const phases = (rounds: Round[]) =>
      rounds.map((r) => ({ window: r.window, replies: SATURATION }));
    writeFileSync(
      join(PROFILE_DIR, "saturation.json"),
      JSON.stringify({ bot: phases(bot), bare: phases(bare) }, null, 2),
    );
  }
  unsubscribe();
  await load.close();
  await sandbox.close();

  const med = (rounds: Round[], f: (r: Round) => number) => median(rounds.map(f));
  const p = (q: number) => (r: Round) => percentile(r.fixedLatencies, q);
  const row = (
    metric: string,
    f: (r: Round) => number,
    unit: string,
    better: "higher" | "lower",
  ): Row => ({
    metric,
    value: med(bot, f),
    baseline: med(bare, f),
    unit,
    better,
    baselineIs: "bare undici poll + POST loop",
  });
  const rows: Row[] = [
    row(`fixed ${RATE}/s: latency p50`, p(50), "ms", "lower"),
    row(`fixed ${RATE}/s: latency p95`, p(95), "ms", "lower"),
    row(`fixed ${RATE}/s: latency p99`, p(99), "ms", "lower"),
    row(`fixed ${RATE}/s: CPU per reply`, (r) => r.fixedCpuPerReply, "ms", "lower"),
    row("saturation: throughput", (r) => r.throughput, "msgs/s", "higher"),
    row("saturation: CPU per reply", (r) => r.cpuPerReply, "ms", "lower"),
    row(
      `saturation right after start (commands ${FIRST_WARMUP}–${FIRST_WARMUP + EARLY}): CPU per reply`,
      (r) => r.earlyCpuPerReply,
      "ms",
      "lower",
    ),
    row("saturation: polls per reply", (r) => r.pollsPerReply, "polls", "lower"),
    row(
      "saturation: the echo process busy (its CPU over wall time)",
      (r) => r.echoBusy,
      "cores",
      "lower",
    ),
  ];
  const value = (metric: string) => rows.find((r) => r.metric.endsWith(metric))!;
  const p50 = value("latency p50");
  const p99 = value("latency p99");
  const tput = value("throughput");
  const cpu = value("saturation: CPU per reply");
  const rounds = [...bare, ...bot];
  const busiest = Math.max(...rounds.map((r) => r.sandboxBusy));
  const busiestLoop = Math.max(...rounds.map((r) => r.sandboxLoop));
  const busiestEcho = (contender: Round[]) => Math.max(...contender.map((r) => r.echoBusy));
  const pct = (n: number) => `${Math.round(100 * n)}%`;
  const ms = (n: number) => n.toFixed(2);
  return {
    name: "reply",
    title: "Reply: `bot start` echoing against the sandbox, beside a bare echo loop",
    method: `The bot as users run it: \`node bin/bot.js start\` (the built CLI) with \`storage: file\` (every reply journals its intent and outcome), \`rateLimit: false\` and a one-command plugin answering \`!echo <n>\` with \`echo <n>\`, in its own process, against a sandbox in the benchmark's process. Beside it, in its own process too, \`bench/bare-echo.ts\`: a bare undici long-poll + POST loop with no framework, the floor. A load generator (an undici pool) posts \`!echo <n>\` as ${USERS} users in ${TOPICS} topics. Fixed rate: ${RATE} commands/s for ${RATE_SECONDS} s, sent whether or not earlier ones were answered; latency is from the command's POST leaving to the reply being stored by the sandbox. Saturation: ${SATURATION.toLocaleString("en")} commands with ${IN_FLIGHT} in flight (each sender waits for its reply before the next). CPU per reply is the echo process's user + system time (/proc) over the phase, divided by its replies; polls per reply counts the GET /events requests the sandbox served over the saturation phase (the bare loop polls again only once a poll's replies are answered, the bot at once: it carries fewer replies per poll). ${ROUNDS} rounds, bot and bare loop alternating, each after a ${WARMUP.toLocaleString("en")}-command warm-up at saturation, so that what is measured is a running bot: for its first few thousand replies the bot's optimizing compiler is still at work on other threads, which the bare loop, far less code, finishes almost at once; CPU per reply right after start (commands ${FIRST_WARMUP}–${FIRST_WARMUP + EARLY} of the warm-up) is shown too. Each figure is the median of the rounds.`,
    rows,
    checks: [
      {
        what: `issue 17 goal 2, throughput: ${Math.round((100 * tput.value) / tput.baseline!)}% of the bare loop (goal ≥ 85%)`,
        ok: tput.value >= 0.85 * tput.baseline!,
        goal: true,
      },
      {
        what: `issue 17 goal 2, latency at ${RATE}/s: p50 ${ms(p50.value - p50.baseline!)} ms over the bare loop's (goal ≤ 2), p99 ${ms(p99.value - p99.baseline!)} ms over (goal ≤ 10)`,
        ok: p50.value - p50.baseline! <= 2 && p99.value - p99.baseline! <= 10,
        goal: true,
      },
      {
        what: `issue 17 goal 2, CPU per reply: ${(cpu.value / cpu.baseline!).toFixed(2)}× the bare loop's (goal ≤ 1.5×)`,
        ok: cpu.value <= 1.5 * cpu.baseline!,
        goal: true,
      },
      {
        // Not a goal: what the throughput rows measure. On a 2-core machine the sandbox and the load
        // generator need more CPU per reply (two POST /messages, each ~59 µs even on the bare
        // node:http server of the sandbox bench) than either echo process spends on a whole reply,
        // so at saturation the sandbox's event loop sets the pace for both contenders.
        what: `the echo processes are not what limits throughput: at saturation the bot used at most ${pct(busiestEcho(bot))} of a core and the bare loop ${pct(busiestEcho(bare))}, while the event loop of the benchmark's process (sandbox + load generator) was up to ${pct(busiestLoop)} busy (its CPU, GC and compiler threads included: ${pct(busiest)} of a core); the throughput rows are the sandbox's ceiling on this machine, which goal 2 asks the bot to reach, and CPU per reply is the echo's own cost`,
        ok: Math.max(busiestEcho(bot), busiestEcho(bare)) < 0.9,
      },
      {
        what: `every command got exactly one reply (${seq} commands, ${repliedAt.size} answered, ${extraReplies} answered twice)`,
        ok: repliedAt.size === seq && extraReplies === 0,
      },
    ],
  };
});

/** One round's CPU and throughput figures, for the progress lines (the spread the medians hide). */
function roundFigures(r: Round): string {
  return `CPU per reply ${r.cpuPerReply.toFixed(3)} ms at saturation (${r.earlyCpuPerReply.toFixed(3)} right after start), ${r.fixedCpuPerReply.toFixed(2)} ms at ${RATE}/s; ${Math.round(r.throughput)} replies/s, ${r.pollsPerReply.toFixed(3)} polls per reply`;
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
