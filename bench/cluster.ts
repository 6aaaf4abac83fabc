// Cluster benchmark: an I/O-bound handler (100 ms) answered by 1, 2 and 4 cluster worker processes, beside one plain process.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "../src/client/client.js";
import { startSandbox, type Sandbox } from "../src/sandbox/index.js";
import { startRedis } from "../test/helpers/redis.js";
import { main, median, progress, type Row } from "./lib.js";
import { sandboxServerLines } from "../test/helpers/process.js";

const bin = fileURLToPath(new URL("../bin/bot.js", import.meta.url));
const MESSAGES = 640;
const CONVERSATIONS = 64;
const HANDLER_MS = 100;
/**
 * The load generator's sends are retried on a network error too (a POST is not, by default): on a
 * loaded machine the sandbox closes an idle keep-alive socket just as a send is written to it
 * (EPIPE, ECONNRESET), which ended the benchmark. A command sent twice is answered twice, which
 * the counts below tolerate (they wait for at least as many answers as commands).
 */
const LOAD_GENERATOR = { retryUnsafe: true } as const;
/** Commands sent one at a time (each after the last was answered) to time one message's way. */
const SEQUENTIAL = 30;

const PLUGIN = `export default { name: "work", setup(bot) {
  bot.command("work", { description: "waits, then answers" }, async (ctx) => {
    await new Promise((r) => setTimeout(r, ${HANDLER_MS}));
    await ctx.reply("done " + ctx.message.id);
  });
} };`;

/**
 * Every bot process started and not yet stopped: stopped in the end whatever failed, before the
 * sandbox and Redis close (a node left running after the benchmark's process ended wrote its logs
 * into a closed pipe: EPIPE; one still polling a closed sandbox failed its requests).
 */
const running = new Set<ChildProcess>();

/** Starts `count` bot processes on `config` and waits until each is ready. */
async function startNodes(config: string, count: number, args: string[]): Promise<ChildProcess[]> {
  const nodes: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    // stderr is piped too (not inherited): a node's output never goes to a stream this process
    // may close before it; both are read to the end so the node never blocks on a full pipe.
    const child = spawn(process.execPath, [bin, "start", "--config", config, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LOG_LEVEL: "info" },
    });
    running.add(child);
    child.once("exit", () => running.delete(child));
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Buffer) => {
      if (out.length < 200_000) out += c.toString();
    });
    child.stderr!.on("data", (c: Buffer) => {
      if (err.length < 20_000) err += c.toString();
    });
    for (let waited = 0; !out.includes('"msg":"ready"'); waited += 50) {
      if (waited > 120_000 || child.exitCode !== null)
        throw new Error(`node did not start:\n${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    nodes.push(child);
  }
  return nodes;
}

async function stopNodes(nodes: Iterable<ChildProcess>): Promise<void> {
  await Promise.all(
    [...nodes].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

/** Sends MESSAGES commands over CONVERSATIONS topics at once; seconds until every one is answered. */
async function measure(sandbox: Sandbox, round: string): Promise<number> {
  const human = sandbox.user("mia");
  const client = createClient({ site: sandbox.url, email: human.email, apiKey: human.apiKey });
  const answered = () =>
    sandbox.realm.messages.filter(
      (m) => m.senderId === sandbox.bot.userId && m.topic.startsWith(round),
    ).length;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONVERSATIONS }, async (_, c) => {
      for (let i = c; i < MESSAGES; i += CONVERSATIONS)
        await client.messages.send(
          { type: "channel", to: "general", topic: `${round} ${c}`, content: "!work" },
          LOAD_GENERATOR,
        );
    }),
  );
  for (let waited = 0; answered() < MESSAGES; waited += 20) {
    if (waited > 300_000) throw new Error(`${round}: ${answered()} of ${MESSAGES} answered`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await client.close();
  return (performance.now() - started) / 1000;
}

/** Sends SEQUENTIAL commands one after another in one topic; the median ms from send to answer. */
async function latency(sandbox: Sandbox, round: string): Promise<number> {
  const human = sandbox.user("mia");
  const client = createClient({ site: sandbox.url, email: human.email, apiKey: human.apiKey });
  const samples: number[] = [];
  const topic = `${round} one by one`;
  const answered = () =>
    sandbox.realm.messages.filter((m) => m.senderId === sandbox.bot.userId && m.topic === topic)
      .length;
  for (let i = 0; i < SEQUENTIAL; i++) {
    const started = performance.now();
    await client.messages.send(
      { type: "channel", to: "general", topic, content: "!work" },
      LOAD_GENERATOR,
    );
    for (let waited = 0; answered() <= i; waited += 2) {
      if (waited > 30_000) throw new Error(`${round}: command ${i} not answered`);
      await new Promise((r) => setTimeout(r, 2));
    }
    samples.push(performance.now() - started);
  }
  await client.close();
  return median(samples);
}

await main(async () => {
  const redis = await startRedis();
  const sandbox = await startSandbox({ heartbeatSeconds: 1 });
  const dir = await mkdtemp(join(tmpdir(), "topicbot-bench-cluster-"));
  await writeFile(join(dir, "work.mjs"), PLUGIN);
  const base = [
    ...sandboxServerLines(sandbox),
    "channels: [general]",
    "rateLimit: false",
    `concurrency: ${CONVERSATIONS}`,
    "logging: { level: info, format: json }",
    "plugins: [./work.mjs]",
  ];
  const single = join(dir, "single.yaml");
  const clustered = join(dir, "cluster.yaml");
  await writeFile(single, base.join("\n"));
  await writeFile(
    clustered,
    [...base, "cluster:", `  redis: ${redis.url}`, `  partitions: ${CONVERSATIONS}`].join("\n"),
  );
  const rows: Row[] = [];
  try {
    progress("single process");
    let nodes = await startNodes(single, 1, []);
    const baseline = MESSAGES / (await measure(sandbox, "single"));
    const singleLatency = await latency(sandbox, "single");
    await stopNodes(nodes);
    let clusterLatency = NaN;
    const throughput = new Map<number, number>();
    for (const workers of [1, 2, 4]) {
      progress(`cluster, ${workers} worker process(es)`);
      await redis.client.flushall();
      nodes = await startNodes(clustered, workers, []);
      await new Promise((r) => setTimeout(r, 1_500)); // partitions settle among the nodes
      throughput.set(workers, MESSAGES / (await measure(sandbox, `cluster${workers}`)));
      if (workers === 1) clusterLatency = await latency(sandbox, "cluster1");
      await stopNodes(nodes);
    }
    for (const [workers, value] of throughput)
      rows.push({
        metric: `cluster, ${workers} worker process${workers > 1 ? "es" : ""}: throughput`,
        value,
        baseline,
        unit: "msg/s",
        better: "higher",
        baselineIs: "one plain process, same concurrency",
      });
    rows.push({
      metric: `one command at a time: send → answer (median of ${SEQUENTIAL}), 1 worker`,
      value: clusterLatency,
      baseline: singleLatency,
      unit: "ms",
      better: "lower",
      baselineIs: "one plain process",
    });
    rows.push({
      metric: "cluster overhead per message (1 worker, one at a time)",
      value: clusterLatency - singleLatency,
      baseline: 0,
      unit: "ms",
      better: "lower",
      baselineIs: "one plain process",
    });
  } finally {
    await stopNodes(running);
    await sandbox.close();
    await redis.close();
    await rm(dir, { recursive: true, force: true });
  }
  return {
    name: "cluster",
    title: `Cluster mode: ${MESSAGES} commands in ${CONVERSATIONS} topics, a ${HANDLER_MS} ms handler`,
    method: `One plain \`bot start\` (concurrency ${CONVERSATIONS}) against the in-process sandbox, then ${CONVERSATIONS}-partition clusters of 1, 2 and 4 \`bot start --cluster\` processes on a local redis-server (AOF, fsync always); each round sends ${MESSAGES} commands over ${CONVERSATIONS} topics at once and times until all are answered. Overhead per message: ${SEQUENTIAL} commands sent one at a time (each after the last one's answer) in one topic, median send → answer in the 1-worker cluster minus the same in the plain process (the ${HANDLER_MS} ms handler is in both).`,
    rows,
    checks: [],
  };
});
