// Benchmark: `bot start` (the real bin) from process start to "ready", against a sandbox, vs a bare `node` start.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSandbox } from "../src/sandbox/server.js";
import { main, median, progress } from "./lib.js";

const RUNS = 5;
const bin = fileURLToPath(new URL("../bin/bot.js", import.meta.url));

/** The environment without ZULIP_* variables, so nothing but the sandbox is ever reached. */
const env = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ZULIP_"))),
  LOG_LEVEL: "info",
});

/** Milliseconds from spawning `args` until a stdout line matches `ready`; then stops the process. */
async function timeToReady(args: string[], cwd: string, ready: RegExp): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    cwd,
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
  const ms = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not ready within 30 s:\n${out}\n${err}`)),
      30_000,
    );
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve(performance.now() - started);
      }
    });
    child.once("exit", (code) => {
      if (!ready.test(out)) reject(new Error(`exited with ${code} before ready:\n${out}\n${err}`));
    });
  });
  if (child.exitCode === null) {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
  return ms;
}

void main(async () => {
  const sandbox = await startSandbox({ heartbeatSeconds: 30 });
  const dir = await mkdtemp(join(tmpdir(), "topicbot-bench-"));
  const config = join(dir, "bot.config.yaml");
  await writeFile(
    config,
    [
      "server:",
      `  site: ${sandbox.url}`,
      `  email: ${sandbox.bot.email}`,
      `  apiKey: ${sandbox.bot.apiKey}`,
      "logging: { level: info, format: json }",
      "plugins: [ping]",
      "",
    ].join("\n"),
  );
  const bot: number[] = [];
  const bare: number[] = [];
  try {
    progress(`startup: ${RUNS} runs of \`bot start\` against the sandbox, and of a bare node`);
    await timeToReady([bin, "start", "-c", config], dir, /"msg":"ready"/);
    for (let i = 0; i < RUNS; i++) {
      bot.push(await timeToReady([bin, "start", "-c", config], dir, /"msg":"ready"/));
      bare.push(await timeToReady(["-e", "console.log('ready')"], dir, /ready/));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
    await sandbox.close();
  }
  return {
    name: "startup",
    title: "Startup: process start to ready",
    method: `\`node bin/bot.js start -c <config>\` (the built CLI, the \`ping\` plugin, JSON logs) against a sandbox on loopback, timed from spawn to its \`"msg":"ready"\` log line (credentials checked, plugins set up, queue registered), median of ${RUNS} runs after one to warm the file cache. Baseline: spawning \`node -e "console.log('ready')"\` to its first line, the same number of times.`,
    rows: [
      {
        metric: "start to ready (median)",
        value: median(bot),
        baseline: median(bare),
        unit: "ms",
        better: "lower",
        baselineIs: "bare node",
      },
      {
        metric: "start to ready (slowest)",
        value: Math.max(...bot),
        baseline: Math.max(...bare),
        unit: "ms",
        better: "lower",
        baselineIs: "bare node",
      },
    ],
    checks: [],
  };
});
