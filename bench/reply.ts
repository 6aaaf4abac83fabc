// Benchmark: the bot in its own process against the sandbox over loopback; reply throughput and latency vs bare POSTs.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { startSandbox, type Sandbox } from "../src/sandbox/server.js";
import { main, percentile, progress, sleep, until, type Row } from "./lib.js";

const USERS = 20;
const TOPICS = 10;
const RATE = 50;
const RATE_SECONDS = 4;
const SATURATION = 1_000;
const CONCURRENCY = 64;

interface Account {
  email: string;
  apiKey: string;
}

interface Phase {
  throughput: number;
  latencies: number[];
}

/** Sends channel messages as the given users with a bare undici pool: the load generator. */
function sender(sandbox: Sandbox) {
  const pool = new Pool(sandbox.url, { connections: CONCURRENCY, pipelining: 1 });
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

/** Runs `count` sends at a fixed rate (open loop) or as fast as `concurrency` senders go. */
async function load(
  count: number,
  mode: { rate: number } | { concurrency: number },
  send: (i: number) => Promise<void>,
): Promise<void> {
  if ("rate" in mode) {
    const t0 = performance.now();
    const inflight: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const due = t0 + (i * 1000) / mode.rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      inflight.push(send(i));
    }
    await Promise.all(inflight);
    return;
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: mode.concurrency }, async () => {
      while (next < count) await send(next++);
    }),
  );
}

/** CPU time (user + system) a process has used, in ms, from /proc (Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 a second).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

void main(async () => {
  const sandbox = await startSandbox({ heartbeatSeconds: 30 });
  const { realm } = sandbox;
  const general = realm.channelByName("general")!;
  const quiet = realm.addChannel("bench-baseline");
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
    realm.subscribe(quiet, u.userId);
    return { email: u.email, apiKey: u.apiKey };
  });

  const storeDir = mkdtempSync(join(tmpdir(), "topicbot-bench-reply-"));
  /** Starts an echo bot in its own process and waits for it to poll. */
  async function startEcho(script: string, extra: string[]) {
    const proc = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        fileURLToPath(new URL(script, import.meta.url)),
        sandbox.url,
        sandbox.bot.email,
        sandbox.bot.apiKey,
        ...extra,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    proc.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    await until(() => out.includes("ready"), 30_000, `${script} to start`);
    return proc;
  }
  // The durable path: the delivery journal on disk, an intent written before every reply.
  const child = await startEcho("./bot-process.ts", [join(storeDir, "bot.json")]);

  // Replies, by the number they echo: when they reached the server.
  const repliedAt = new Map<number, number>();
  const unsubscribe = realm.onMessage((m) => {
    if (m.senderId !== sandbox.bot.userId) return;
    const n = /^echo (\d+)$/.exec(m.content);
    if (n) repliedAt.set(Number(n[1]), performance.now());
  });
  const load1 = sender(sandbox);
  let seq = 0;

  async function botPhase(
    count: number,
    mode: { rate: number } | { concurrency: number },
  ): Promise<Phase> {
    const first = seq;
    const sentAt = new Map<number, number>();
    const t0 = performance.now();
    await load(count, mode, async (i) => {
      const n = seq++;
      sentAt.set(n, performance.now());
      await load1.send(users[i % USERS]!, "general", `topic ${i % TOPICS}`, `!echo ${n}`);
    });
    await until(() => repliedAt.size >= seq, 60_000, `${count} replies`);
    const latencies: number[] = [];
    let last = 0;
    for (let n = first; n < seq; n++) {
      latencies.push(repliedAt.get(n)! - sentAt.get(n)!);
      last = Math.max(last, repliedAt.get(n)!);
    }
    return { throughput: count / ((last - t0) / 1000), latencies };
  }

  async function baselinePhase(
    count: number,
    mode: { rate: number } | { concurrency: number },
  ): Promise<Phase> {
    const latencies: number[] = [];
    const t0 = performance.now();
    await load(count, mode, async (i) => {
      const start = performance.now();
      await load1.send(users[i % USERS]!, "bench-baseline", `topic ${i % TOPICS}`, `plain ${i}`);
      latencies.push(performance.now() - start);
    });
    return { throughput: count / ((performance.now() - t0) / 1000), latencies };
  }

  progress("reply: warm-up, 200 commands");
  await botPhase(200, { concurrency: 16 });
  progress(
    `reply: ${RATE} commands/s for ${RATE_SECONDS} s from ${USERS} users in ${TOPICS} topics`,
  );
  const fixed = await botPhase(RATE * RATE_SECONDS, { rate: RATE });
  progress(`reply: saturation, ${SATURATION} commands from ${CONCURRENCY} concurrent senders`);
  const cpuBefore = cpuMs(child.pid!);
  const saturated = await botPhase(SATURATION, { concurrency: CONCURRENCY });
  const botCpuPerReply = (cpuMs(child.pid!) - cpuBefore) / SATURATION;
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));

  progress("reply: the floor, a bare undici poll + POST echo loop");
  const bare = await startEcho("./bare-echo.ts", []);
  await botPhase(200, { concurrency: 16 });
  const bareCpuBefore = cpuMs(bare.pid!);
  const bareSaturated = await botPhase(SATURATION, { concurrency: CONCURRENCY });
  const bareCpuPerReply = (cpuMs(bare.pid!) - bareCpuBefore) / SATURATION;
  bare.kill("SIGTERM");
  await new Promise((resolve) => bare.once("exit", resolve));
  unsubscribe();

  progress("reply: baseline, bare undici POST /messages");
  await baselinePhase(200, { concurrency: 16 });
  const fixedBase = await baselinePhase(RATE * RATE_SECONDS, { rate: RATE });
  const saturatedBase = await baselinePhase(SATURATION, { concurrency: CONCURRENCY });
  await load1.close();
  await sandbox.close();
  rmSync(storeDir, { recursive: true, force: true });

  const latencyRows = (label: string, bot: Phase, base: Phase): Row[] =>
    [50, 95, 99].map((p) => ({
      metric: `${label}: latency p${p}`,
      value: percentile(bot.latencies, p),
      baseline: percentile(base.latencies, p),
      unit: "ms",
      better: "lower" as const,
      baselineIs: "one bare POST",
    }));
  return {
    name: "reply",
    title: "Reply: the bot against the sandbox over loopback",
    method: `The bot (\`bench/bot-process.ts\`: \`createBot\` with an \`!echo <n>\` command, its own process, file storage so every reply journals its intent and outcome, as \`bot start\` does) polls a sandbox in the benchmark's process. A load generator (an undici pool, ${CONCURRENCY} connections) posts \`!echo <n>\` as ${USERS} users in ${TOPICS} topics; latency is from the command's POST leaving to the bot's reply being stored by the sandbox. Fixed rate: ${RATE} commands/s for ${RATE_SECONDS} s, sent whether or not earlier ones were answered. Saturation: ${SATURATION.toLocaleString("en")} commands from ${CONCURRENCY} concurrent senders; throughput counts replies. Baseline: the same numbers of bare POST /messages by the same pool to a channel the bot is not in (one request, no event, no reply: the floor no bot can beat).`,
    rows: [
      {
        metric: `fixed ${RATE}/s: throughput`,
        value: fixed.throughput,
        baseline: fixedBase.throughput,
        unit: "msgs/s",
        better: "higher",
        baselineIs: "bare POSTs",
      },
      ...latencyRows(`fixed ${RATE}/s`, fixed, fixedBase),
      {
        metric: "saturation: throughput",
        value: saturated.throughput,
        baseline: saturatedBase.throughput,
        unit: "msgs/s",
        better: "higher",
        baselineIs: "bare POSTs",
      },
      ...latencyRows("saturation", saturated, saturatedBase),
      {
        metric: "saturation: throughput vs a bare echo loop",
        value: saturated.throughput,
        baseline: bareSaturated.throughput,
        unit: "msgs/s",
        better: "higher",
        baselineIs: "bare undici poll + POST loop",
      },
      {
        metric: "saturation: bot CPU per reply (file storage, journal)",
        value: botCpuPerReply,
        baseline: bareCpuPerReply,
        unit: "ms",
        better: "lower",
        baselineIs: "bare undici poll + POST loop",
      },
    ],
    checks: [
      {
        what: `reply path (issue 17 goal 2): throughput ${Math.round((100 * saturated.throughput) / bareSaturated.throughput)}% of the bare loop (goal ≥ 85%), CPU per reply ${(botCpuPerReply / bareCpuPerReply).toFixed(2)}× the bare loop's (goal ≤ 1.5×)`,
        ok:
          saturated.throughput >= 0.85 * bareSaturated.throughput &&
          botCpuPerReply <= 1.5 * bareCpuPerReply,
      },
      {
        what: `every command got exactly one reply (${seq} commands, ${repliedAt.size} distinct replies)`,
        ok: repliedAt.size === seq,
      },
    ],
  };
});
