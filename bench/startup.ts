// Benchmark: `bot start` (the real bin) from spawn to its first answer, and its idle RSS, vs a zulip-js bot and a bare undici bot.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { startSandbox, type Sandbox } from "../src/sandbox/server.js";
import { compileToDist, main, median, progress, sleep } from "./lib.js";
import { sandboxServerLines } from "../test/helpers/process.js";

/**
 * Rounds of each contender. Spawn times on this 2-core machine spread widely (the same build:
 * 212-258 ms to the first answer), and five rounds let the median ratio move 1.31-1.65x between runs.
 */
const RUNS = 9;
/** How long a bot sits idle after its first answer before its RSS is read. */
const IDLE_MS = 2_000;
const root = new URL("../", import.meta.url);
const bin = fileURLToPath(new URL("bin/bot.js", root));
/**
 * `STARTUP_AB=<other checkout>`: its built `bot start` runs as a fifth contender, timed the same
 * way in the same rounds (an A/B of a change; not a row of `npm run bench`'s report).
 */
const abBin = process.env.STARTUP_AB
  ? join(process.env.STARTUP_AB.replace(/\/+$/, ""), "bin", "bot.js")
  : undefined;
/** The bare bot compiled to plain JavaScript inside the checkout, so `undici` resolves and no tsx loads. */
const bareJs = fileURLToPath(new URL("dist/bench/bare-echo.js", root));
/** The zulip-js bot, compiled the same way (so `zulip-js` resolves from the checkout's node_modules). */
const zulipJs = fileURLToPath(new URL("dist/bench/zulip-js-echo.js", root));

/**
 * The environment without ZULIP_* variables, so nothing but the sandbox is ever reached; the
 * bundle's compile cache (scripts/chunk-loader.ts) in `cacheDir`, this run's own folder, so the
 * bot's warm-up round is the cold start that writes it and every timed round reads it.
 */
const env = (cacheDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ZULIP_"))),
  LOG_LEVEL: "info",
  NODE_COMPILE_CACHE: cacheDir,
  ...extra,
});

/** Resident set size of a process from /proc (Linux), in MiB. */
async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc (Linux; clock ticks of
 * 10 ms). Steadier than wall time on a loaded machine, where a process waits for a core.
 */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of /proc/<pid>/stat (utime, stime), counted after the ") " of the name.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const compileBot = (name: string) => compileToDist(name);

interface Start {
  /** Spawn to the first reply stored by the sandbox, in ms. */
  firstAnswer: number;
  /** Spawn to the "ready" line, in ms. */
  ready: number;
  /** RSS after sitting idle for IDLE_MS after the first answer, in MiB. */
  idleRss: number;
  /** CPU time the bot used from spawn to its first answer, in ms. */
  cpu: number;
}

/**
 * Spawns a bot, waits for its `ready` line, posts `command` into a fresh topic as a human, and times
 * spawn → the bot's reply in that topic (seen by the sandbox); then reads its idle RSS and stops it.
 */
async function timeFirstAnswer(
  sandbox: Sandbox,
  post: (topic: string, content: string) => Promise<void>,
  args: string[],
  ready: RegExp,
  command: string,
  topic: string,
  childEnv: NodeJS.ProcessEnv,
): Promise<Start> {
  let answeredAt: number | undefined;
  const stop = sandbox.realm.onMessage((m) => {
    if (m.senderId === sandbox.bot.userId && m.topic === topic) answeredAt ??= performance.now();
  });
  const started = performance.now();
  const child = spawn(process.execPath, args, { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  try {
    let out = "";
    let err = "";
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    const deadline = started + 30_000;
    const waitFor = async (done: () => boolean, what: string): Promise<void> => {
      while (!done()) {
        if (child.exitCode !== null)
          throw new Error(`exited with ${child.exitCode} ${what}:\n${out}\n${err}`);
        if (performance.now() > deadline)
          throw new Error(`no ${what} within 30 s:\n${out}\n${err}`);
        await sleep(1);
      }
    };
    await waitFor(() => ready.test(out), "ready line");
    const readyAt = performance.now();
    await post(topic, command);
    await waitFor(() => answeredAt !== undefined, "answer");
    const cpu = await cpuMs(child.pid!);
    await sleep(IDLE_MS);
    const idleRss = await rssMiB(child.pid!);
    return { firstAnswer: answeredAt! - started, ready: readyAt - started, idleRss, cpu };
  } finally {
    stop();
    await stopChild(child);
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

void main(async () => {
  await compileBot("bare-echo");
  await compileBot("zulip-js-echo");
  const sandbox = await startSandbox({ heartbeatSeconds: 30 });
  const mia = sandbox.user("mia");
  const human = new Pool(sandbox.url, { connections: 1 });
  const authorization = `Basic ${Buffer.from(`${mia.email}:${mia.apiKey}`).toString("base64")}`;
  /** Posts as Mia into #general with a bare undici request. */
  const post = async (topic: string, content: string): Promise<void> => {
    const res = await human.request({
      path: "/api/v1/messages",
      method: "POST",
      headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ type: "channel", to: "general", topic, content }).toString(),
    });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`POST /messages: ${res.statusCode} ${text}`);
  };
  const dir = await mkdtemp(join(tmpdir(), "topicbot-bench-"));
  const config = join(dir, "bot.config.yaml");
  await writeFile(
    config,
    [
      ...sandboxServerLines(sandbox),
      "logging: { level: info, format: json }",
      "plugins: [ping]",
      "",
    ].join("\n"),
  );
  const botArgs = [bin, "start", "-c", config];
  const bareArgs = [bareJs, sandbox.url, sandbox.bot.email, sandbox.bot.apiKey];
  const zulipArgs = [zulipJs, sandbox.url, sandbox.bot.email, sandbox.bot.apiKey];
  const cached = env(join(dir, "compile-cache"));
  const uncached = env(join(dir, "compile-cache"), { NODE_DISABLE_COMPILE_CACHE: "1" });
  const bot: Start[] = [];
  /** `bot start` without the compile cache: a first start, or one with Node's switch set. */
  const cold: Start[] = [];
  const bare: Start[] = [];
  const zjs: Start[] = [];
  const node: number[] = [];
  const ab: Start[] = [];
  try {
    progress(
      `startup: ${RUNS} rounds of \`bot start\` (with and without its compile cache), a zulip-js bot, a bare undici bot and a bare node, spawn to first answer`,
    );
    // One of each first, to warm the file cache; the bot's also writes its compile cache.
    await timeFirstAnswer(sandbox, post, botArgs, /"msg":"ready"/, "!ping", "warm bot", cached);
    await timeFirstAnswer(sandbox, post, bareArgs, /ready/, "!echo 0", "warm bare", cached);
    await timeFirstAnswer(sandbox, post, zulipArgs, /ready/, "!echo 0", "warm zulip-js", cached);
    for (let i = 0; i < RUNS; i++) {
      bot.push(
        await timeFirstAnswer(sandbox, post, botArgs, /"msg":"ready"/, "!ping", `bot ${i}`, cached),
      );
      cold.push(
        await timeFirstAnswer(
          sandbox,
          post,
          botArgs,
          /"msg":"ready"/,
          "!ping",
          `cold ${i}`,
          uncached,
        ),
      );
      bare.push(
        await timeFirstAnswer(sandbox, post, bareArgs, /ready/, `!echo ${i}`, `bare ${i}`, cached),
      );
      zjs.push(
        await timeFirstAnswer(
          sandbox,
          post,
          zulipArgs,
          /ready/,
          `!echo ${i}`,
          `zulip-js ${i}`,
          cached,
        ),
      );
      node.push(await timeNodeStart(dir));
      if (abBin)
        ab.push(
          await timeFirstAnswer(
            sandbox,
            post,
            [abBin, "start", "-c", config],
            /"msg":"ready"/,
            "!ping",
            `other build ${i}`,
            cached,
          ),
        );
      progress(
        `startup: round ${i + 1}: bot ${bot.at(-1)!.firstAnswer.toFixed(0)} ms (CPU ${bot.at(-1)!.cpu} ms)${abBin ? `; other build ${ab.at(-1)!.firstAnswer.toFixed(0)} ms (CPU ${ab.at(-1)!.cpu} ms)` : ""}, ${bot.at(-1)!.idleRss.toFixed(0)} MiB; no cache ${cold.at(-1)!.firstAnswer.toFixed(0)} ms; zulip-js ${zjs.at(-1)!.firstAnswer.toFixed(0)} ms, ${zjs.at(-1)!.idleRss.toFixed(0)} MiB; bare ${bare.at(-1)!.firstAnswer.toFixed(0)} ms, ${bare.at(-1)!.idleRss.toFixed(0)} MiB`,
      );
    }
  } finally {
    await human.close();
    await rm(dir, { recursive: true, force: true });
    await sandbox.close();
  }
  const med = (starts: Start[], key: keyof Start): number => median(starts.map((s) => s[key]));
  const answerRatio = med(bot, "firstAnswer") / med(zjs, "firstAnswer");
  const bareAnswerRatio = med(bot, "firstAnswer") / med(bare, "firstAnswer");
  const rssRatio = med(bot, "idleRss") / med(bare, "idleRss");
  const abRows = abBin
    ? (["cpu", "firstAnswer", "idleRss"] as const).map((key) => ({
        metric: `A/B: ${key === "cpu" ? "CPU time, spawn to first answer" : key === "firstAnswer" ? "spawn to first answer" : "idle RSS"} (median)`,
        value: med(bot, key),
        baseline: med(ab, key),
        unit: key === "idleRss" ? "MiB" : "ms",
        better: "lower" as const,
        baselineIs: `the build in ${process.env.STARTUP_AB}`,
      }))
    : [];
  return {
    name: "startup",
    title: "Startup: spawn to first answer, and idle memory",
    method: `\`node bin/bot.js start -c <config>\` (the built CLI, the \`ping\` plugin, JSON logs, memory storage) against a sandbox on loopback: timed from spawn to its \`"msg":"ready"\` line, then a human posts \`!ping\` into a fresh topic and the clock stops when the sandbox stores the bot's answer; RSS is read from /proc ${IDLE_MS / 1000} s after that answer. Baselines, timed the same way with \`!echo <n>\`: a zulip-js bot (\`bench/zulip-js-echo.ts\`: zulip-js 2.1 as its README uses it, \`users.me.getProfile\`, \`queues.register\`, an \`events.retrieve\` loop answering with \`messages.send\`), the baseline issue 17 names; and a bare bot (\`bench/bare-echo.ts\`: undici, GET /users/me, POST /register, a poll loop), the floor. Both are compiled to plain JavaScript inside the checkout. The bot runs with its compile cache (scripts/chunk-loader.ts: V8's compiled code of the bundle, kept on disk as Node 22 keeps its own) in a folder of this run's, written by its warm-up round, as every start after a user's first finds it; and also without it (\`NODE_DISABLE_COMPILE_CACHE=1\`: a first start, or the cache switched off), shown beside but not the goal. The four alternate, ${RUNS} rounds after one warm-up each; medians. Also shown: each process's CPU time (user + system, from /proc) when its answer is stored, steadier than wall time on a loaded machine; and spawning \`node -e\` to its first line.`,
    rows: [
      {
        metric: "spawn to first answer (median)",
        value: med(bot, "firstAnswer"),
        baseline: med(zjs, "firstAnswer"),
        unit: "ms",
        better: "lower",
        baselineIs: "zulip-js bot",
      },
      {
        metric: "spawn to first answer (median)",
        value: med(bot, "firstAnswer"),
        baseline: med(bare, "firstAnswer"),
        unit: "ms",
        better: "lower",
        baselineIs: "bare undici bot",
      },
      {
        metric: "spawn to first answer, no compile cache (median)",
        value: med(cold, "firstAnswer"),
        baseline: med(zjs, "firstAnswer"),
        unit: "ms",
        better: "lower",
        baselineIs: "zulip-js bot",
      },
      {
        metric: "spawn to first answer (slowest)",
        value: Math.max(...bot.map((s) => s.firstAnswer)),
        baseline: Math.max(...zjs.map((s) => s.firstAnswer)),
        unit: "ms",
        better: "lower",
        baselineIs: "zulip-js bot",
      },
      {
        metric: "CPU time, spawn to first answer (median)",
        value: med(bot, "cpu"),
        baseline: med(zjs, "cpu"),
        unit: "ms",
        better: "lower",
        baselineIs: "zulip-js bot",
      },
      {
        metric: "CPU time, spawn to first answer (median)",
        value: med(bot, "cpu"),
        baseline: med(bare, "cpu"),
        unit: "ms",
        better: "lower",
        baselineIs: "bare undici bot",
      },
      {
        metric: "CPU time, spawn to first answer, no compile cache (median)",
        value: med(cold, "cpu"),
        baseline: med(zjs, "cpu"),
        unit: "ms",
        better: "lower",
        baselineIs: "zulip-js bot",
      },
      {
        metric: "spawn to ready line (median)",
        value: med(bot, "ready"),
        baseline: median(node),
        unit: "ms",
        better: "lower",
        baselineIs: "bare node",
      },
      {
        metric: "idle RSS after the first answer (median)",
        value: med(bot, "idleRss"),
        baseline: med(bare, "idleRss"),
        unit: "MiB",
        better: "lower",
        baselineIs: "bare undici bot",
      },
      {
        metric: "idle RSS after the first answer (median)",
        value: med(bot, "idleRss"),
        baseline: med(zjs, "idleRss"),
        unit: "MiB",
        better: "lower",
        baselineIs: "zulip-js bot",
      },
      ...abRows,
    ],
    checks: [
      {
        what: `start-up (issue 17 goal 3): spawn to first answer ${answerRatio.toFixed(2)}× the zulip-js bot's (goal ≤ 1.5×; ${bareAnswerRatio.toFixed(2)}× the bare bot's; without the compile cache ${(med(cold, "firstAnswer") / med(zjs, "firstAnswer")).toFixed(2)}×, not the goal)`,
        ok: answerRatio <= 1.5,
        goal: true,
      },

      {
        what: `idle RSS (issue 17 goal 3): ${rssRatio.toFixed(2)}× the bare bot's (goal ≤ 1.2×)`,
        ok: rssRatio <= 1.2,
        goal: true,
      },
    ],
  };
});

/** Milliseconds from spawning `node -e` until it prints its first line. */
async function timeNodeStart(cwd: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ["-e", "console.log('ready')"], {
    cwd,
    stdio: ["ignore", "pipe", "ignore"],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", () => resolve(performance.now() - started));
    child.once("error", reject);
  });
}
