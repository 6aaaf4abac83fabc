// Test helper: a cluster of real `bot start --cluster` processes against one sandbox and one redis-server.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { bin, cleanEnv, watch, sandboxServerLines } from "./process.js";
import { startRedis, type TestRedis } from "./redis.js";

/** `!work` waits `WORK_MS` and answers `echo <message id>`, so every reply names its command. */
const PLUGIN = `
export default {
  name: "work",
  setup(bot) {
    bot.command("work", { description: "Answers after a pause" }, async (ctx) => {
      await new Promise((resolve) => setTimeout(resolve, Number(process.env.WORK_MS ?? 5)));
      await ctx.reply("echo " + ctx.message.id);
    });
  },
};
`;

export interface ClusterNodeProcess {
  child: ChildProcess;
  pid: number;
  stdout: ReturnType<typeof watch>;
  stderr: ReturnType<typeof watch>;
}

export interface TestCluster {
  sandbox: Sandbox;
  redis: TestRedis;
  dir: string;
  config: string;
  nodes: ClusterNodeProcess[];
  /** Starts one more node and waits until it has joined. */
  spawnNode(env?: NodeJS.ProcessEnv): Promise<ClusterNodeProcess>;
  /** The node process holding the leader lease, if any. */
  leaderPid(): Promise<number | undefined>;
  /** Partition number → the pid of the node holding its lock. */
  owners(partitions: number): Promise<Map<number, number>>;
  close(): Promise<void>;
}

/** The pid inside a node name (`<host>-<pid>-<suffix>`). */
const pidOf = (name: string | null | undefined): number | undefined => {
  const match = /-(\d+)-[0-9a-f]+$/.exec(name ?? "");
  return match ? Number(match[1]) : undefined;
};

export async function startCluster(
  options: { nodes?: number; extraConfig?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<TestCluster> {
  const redis = await startRedis();
  const sandbox = await startSandbox({ heartbeatSeconds: 1 });
  const dir = await mkdtemp(join(tmpdir(), "topicbot-cluster-"));
  await writeFile(join(dir, "work.mjs"), PLUGIN);
  const config = join(dir, "bot.config.yaml");
  await writeFile(
    config,
    [
      ...sandboxServerLines(sandbox),
      "channels: [general]",
      "rateLimit: false",
      "logging: { level: info, format: json }",
      "plugins: [./work.mjs]",
      "cluster:",
      `  redis: ${redis.url}`,
      "  partitions: 16",
      ...(options.extraConfig ?? []),
    ].join("\n"),
  );
  const nodes: ClusterNodeProcess[] = [];
  const cluster: TestCluster = {
    sandbox,
    redis,
    dir,
    config,
    nodes,
    async spawnNode(env = {}) {
      const child = spawn(process.execPath, [bin, "start", "--config", config], {
        env: { ...cleanEnv(), ...options.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const node = {
        child,
        pid: child.pid!,
        stdout: watch(child.stdout!),
        stderr: watch(child.stderr!),
      };
      nodes.push(node);
      const exited = once(child, "exit").then(([code]) => {
        throw new Error(`node exited with ${code} before it was ready:\n${node.stderr.text}`);
      });
      exited.catch(() => undefined);
      await Promise.race([node.stdout.waitFor(/"msg":"ready"/, 60_000), exited]).catch(
        (error: unknown) => {
          throw new Error(`${String(error)}\nstderr:\n${node.stderr.text}`);
        },
      );
      return node;
    },
    async leaderPid() {
      const holder = await redis.client.get("topicbot:cluster:leader");
      return pidOf(holder?.split(":").slice(1).join(":"));
    },
    async owners(partitions) {
      const out = new Map<number, number>();
      for (let p = 0; p < partitions; p++) {
        const pid = pidOf(await redis.client.get(`topicbot:cluster:partition-lock:${p}`));
        if (pid !== undefined) out.set(p, pid);
      }
      return out;
    },
    async close() {
      const logs = process.env.CLUSTER_LOG_DIR;
      if (logs)
        for (const [i, node] of nodes.entries())
          await writeFile(
            join(logs, `node-${i}-${node.pid}.log`),
            node.stdout.text + node.stderr.text,
          );
      await Promise.all(
        nodes.map(async ({ child }) => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = once(child, "exit");
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
          await exited;
          clearTimeout(timer);
        }),
      );
      await sandbox.close();
      await redis.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  for (let i = 0; i < (options.nodes ?? 3); i++) await cluster.spawnNode();
  return cluster;
}

/** Kills a node at once (SIGKILL) and waits for it to be gone. */
export async function killNode(
  node: ClusterNodeProcess,
  signal: NodeJS.Signals = "SIGKILL",
): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = once(node.child, "exit");
  node.child.kill(signal);
  await exited;
}
