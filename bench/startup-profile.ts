// Where `bot start`'s CPU goes until its first answer: `--cpu-prof` starts, samples cut at the answer, mapped to sources.
// Usage (after `npm run build`): node --import tsx bench/startup-profile.ts [rounds] [checkout]
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { startSandbox } from "../src/sandbox/server.js";
import { sandboxServerLines } from "../test/helpers/process.js";
import { sleep } from "./lib.js";

const rounds = Number(process.argv[2] ?? 5);
const checkout = process.argv[3] ?? fileURLToPath(new URL("../", import.meta.url));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Gaps between samples longer than this (µs) are counted as this: the main thread waited (for the
 * sandbox, for a core), it did not run the sampled frame all that time.
 */
const MAX_SAMPLE_US = 3_000;

const maps = new Map<string, SourceMap | undefined>();

/**
 * What a frame belongs to: `src/<file>`, `npm:<package>` (inlined in the bundle, through its source
 * maps), `node:<module>` for Node's own code, or V8's name for what has no script (GC, compile).
 */
function owner(frame: ProfileNode["callFrame"]): string {
  const { url, functionName } = frame;
  if (!url) return functionName || "(native)";
  if (url.startsWith("node:")) return url.split("/").slice(0, 3).join("/");
  const path = url.startsWith("file:") ? fileURLToPath(url) : url;
  if (!maps.has(path)) {
    const map = `${path}.map`;
    maps.set(
      path,
      existsSync(map) ? new SourceMap(JSON.parse(readFileSync(map, "utf8"))) : undefined,
    );
  }
  const entry = maps.get(path)?.findEntry(frame.lineNumber, frame.columnNumber) as
    { originalSource?: string } | undefined;
  // A chunk's own helpers (esbuild's) have no source: named by the chunk.
  const source = entry?.originalSource ?? path.replace(/^.*\/dist\//, "dist/");
  return source
    .replace(/^.*?\/(src|node_modules|scripts)\//, "$1/")
    .replace(/^node_modules\/((@[^/]+\/)?[^/]+)\/.*/, "npm:$1");
}

/** Milliseconds of main-thread CPU per owner in `profile` up to `untilUs` (the profile's clock). */
function selfTime(profile: Profile, untilUs: number, into: Map<string, number>): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t > untilUs) break;
    const frame = byId.get(profile.samples[i]!)!.callFrame;
    if (frame.functionName === "(idle)") continue;
    const us = Math.min(profile.timeDeltas[i + 1] ?? 0, MAX_SAMPLE_US);
    const key = owner(frame);
    into.set(key, (into.get(key) ?? 0) + us / 1000);
  }
}

const sandbox = await startSandbox({ heartbeatSeconds: 30 });
const mia = sandbox.user("mia");
const human = new Pool(sandbox.url, { connections: 1 });
const authorization = `Basic ${Buffer.from(`${mia.email}:${mia.apiKey}`).toString("base64")}`;
const dir = await mkdtemp(join(tmpdir(), "topicbot-startup-profile-"));
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
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ZULIP_"))),
  NODE_COMPILE_CACHE: join(dir, "compile-cache"),
};

/**
 * Starts the bot (profiled or not), posts `!ping` once it is ready and resolves with the instant
 * (CLOCK_MONOTONIC, µs, the profile's clock) the sandbox stored its answer; stops it.
 */
async function start(topic: string, profileDir?: string): Promise<number> {
  let answered: bigint | undefined;
  const stop = sandbox.realm.onMessage((m) => {
    if (m.senderId === sandbox.bot.userId && m.topic === topic)
      answered ??= process.hrtime.bigint();
  });
  const flags = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(
    process.execPath,
    [...flags, join(checkout, "bin/bot.js"), "start", "-c", config],
    {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  try {
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    const deadline = Date.now() + 30_000;
    const wait = async (done: () => boolean, what: string): Promise<void> => {
      while (!done()) {
        if (child.exitCode !== null) throw new Error(`bot exited before ${what}:\n${out}`);
        if (Date.now() > deadline) throw new Error(`no ${what} within 30 s:\n${out}`);
        await sleep(1);
      }
    };
    await wait(() => out.includes('"msg":"ready"'), "ready line");
    const res = await human.request({
      path: "/api/v1/messages",
      method: "POST",
      headers: { authorization, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        type: "channel",
        to: "general",
        topic,
        content: "!ping",
      }).toString(),
    });
    await res.body.text();
    await wait(() => answered !== undefined, "answer");
    return Number(answered! / 1000n);
  } finally {
    stop();
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  }
}

try {
  await start("warm-up"); // writes the compile cache, as a user's first start does
  const total = new Map<string, number>();
  for (let i = 0; i < rounds; i++) {
    const profileDir = join(dir, `profile-${i}`);
    const answeredUs = await start(`profiled ${i}`, profileDir);
    const [file] = await readdir(profileDir);
    selfTime(
      JSON.parse(await readFile(join(profileDir, file!), "utf8")) as Profile,
      answeredUs,
      total,
    );
  }
  const rows = [...total].sort((a, b) => b[1] - a[1]);
  const sum = rows.reduce((n, [, ms]) => n + ms, 0);
  console.log(
    `bot start (${checkout}) to its first answer, main thread, mean of ${rounds} profiled starts: ${(sum / rounds).toFixed(0)} ms sampled (the profiler's own cost included)`,
  );
  for (const [key, ms] of rows.slice(0, 30))
    console.log(`${(ms / rounds).toFixed(1).padStart(7)} ms  ${key}`);
} finally {
  await human.close();
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
}
