// Test helper: a cluster of real `bot start --cluster` processes against one sandbox and one redis-server.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { bin, cleanEnv, watch, sandboxServerLines } from "./process.js";
import { startRedis, type TestRedis } from "./redis.js";
import {
  addUsers,
  botReplies,
  expectEachAnsweredOnceInOrder,
  sendSurely,
  waitUntil,
} from "../chaos/helpers.js";

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
  /** Starts one more node and waits until it has joined; `url` is given it with `--cluster`. */
  spawnNode(env?: NodeJS.ProcessEnv, url?: string): Promise<ClusterNodeProcess>;
  /** The node process holding the leader lease, if any. */
  leaderPid(): Promise<number | undefined>;
  /** Partition number → the pid of the node holding its lock. */
  owners(partitions: number): Promise<Map<number, number>>;
  close(): Promise<void>;
}

/** The pid inside a node name (`<host>-<pid>-<suffix>`). */
export const pidOf = (name: string | null | undefined): number | undefined => {
  const match = /-(\d+)-[0-9a-f]+$/.exec(name ?? "");
  return match ? Number(match[1]) : undefined;
};

export async function startCluster(
  options: {
    nodes?: number;
    extraConfig?: string[];
    env?: NodeJS.ProcessEnv;
    /** The Redis to use (default: a new one); closed with the cluster. */
    redis?: TestRedis;
    /** Leave `cluster.redis` out of the config: every node gets it with `--cluster` instead. */
    byFlag?: boolean;
  } = {},
): Promise<TestCluster> {
  const redis = options.redis ?? (await startRedis());
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
      `logging: { level: ${process.env.CLUSTER_LOG_LEVEL ?? "info"}, format: json }`,
      "plugins: [./work.mjs]",
      "cluster:",
      ...(options.byFlag ? [] : [`  redis: ${redis.url}`]),
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
    async spawnNode(env = {}, url = options.byFlag ? redis.url : undefined) {
      const flag = url === undefined ? [] : ["--cluster", url];
      const child = spawn(process.execPath, [bin, "start", "--config", config, ...flag], {
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

/** One `!work` command of a stream: its message ID, topic, and when it was sent. */
export interface StreamedCommand {
  id: number;
  topic: string;
  sentAt: number;
}

/** Commands sent in the background by many users, with when each was first seen answered. */
export interface CommandStream {
  commands: StreamedCommand[];
  /** Command ID → when the test first saw its answer (polled every 20 ms). */
  answeredAt: Map<number, number>;
  /** Bot replies so far. */
  replied(): number;
  /** The number of commands the stream sends (probes sent besides come on top). */
  total: number;
  /** Sends one more command now (a probe), counted like the others. */
  send(user: number, topic: string): Promise<StreamedCommand>;
  /** Waits until everything was sent and answered, then checks once-each and per-topic order. */
  finish(): Promise<void>;
}

/**
 * Starts `count` `!work` commands from `users` users over `topics` topics (users share topics, so
 * per-topic order spans users). Each user keeps at most `window` commands unanswered: the load
 * follows the cluster's pace, as people waiting for a bot do, instead of piling up a backlog
 * whose length would depend on the machine.
 */
export function streamCommands(
  sandbox: Sandbox,
  options: { count: number; users: number; topics: number; window: number },
): CommandStream {
  const clients = addUsers(sandbox, options.users);
  const commands: StreamedCommand[] = [];
  const answeredAt = new Map<number, number>();
  let scanned = 0;
  const scan = (): void => {
    const messages = sandbox.realm.messages;
    const now = Date.now();
    for (; scanned < messages.length; scanned++) {
      const m = messages[scanned]!;
      if (m.senderId !== sandbox.bot.userId) continue;
      const id = Number(/^echo (\d+)$/.exec(m.content)?.[1] ?? NaN);
      if (!answeredAt.has(id)) answeredAt.set(id, now);
    }
  };
  const scanner = setInterval(scan, 20);
  const send = async (user: number, topic: string): Promise<StreamedCommand> => {
    const sentAt = Date.now();
    const id = await sendSurely(clients[user % clients.length]!, topic, "!work");
    const command = { id, topic, sentAt };
    commands.push(command);
    return command;
  };
  const perUser = Math.ceil(options.count / options.users);
  const sending = Promise.all(
    clients.map(async (_client, u) => {
      const mine: number[] = [];
      for (let i = 0; i < perUser; i++) {
        await waitUntil(
          () => mine.filter((id) => !answeredAt.has(id)).length < options.window,
          120_000,
          () => `user ${u}: ${options.window} commands unanswered for 2 minutes`,
        );
        mine.push((await send(u, `topic ${(u * 3 + i) % options.topics}`)).id);
      }
    }),
  );
  sending.catch(() => undefined);
  const replied = () => botReplies(sandbox).length;
  return {
    commands,
    answeredAt,
    replied,
    total: perUser * options.users,
    send,
    async finish() {
      try {
        await sending;
        await waitUntil(
          () => replied() >= commands.length,
          90_000,
          () => `${replied()} of ${commands.length} replies`,
        );
        await new Promise((r) => setTimeout(r, 1_000)); // a late duplicate would show by now
      } finally {
        clearInterval(scanner);
        await Promise.all(clients.map((c) => c.close()));
      }
      expectEachAnsweredOnceInOrder(sandbox, commands);
    },
  };
}

/** A node's `/healthz` (its `http:` receiver must run: `http: { port: 0 }`), read from its ready line's URL. */
export async function nodeHealth(
  node: ClusterNodeProcess,
): Promise<{ status: string; degraded?: string[]; cluster?: Record<string, unknown> }> {
  const url = /"webhooks":\{"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(node.stdout.text)?.[1];
  if (!url) throw new Error("no receiver URL in the node's ready line (give it http: { port: 0 })");
  const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
  return (await response.json()) as Awaited<ReturnType<typeof nodeHealth>>;
}

/** Polls every node's `/healthz` (bounded) until `ok(status)` holds for all; returns the statuses. */
export async function awaitHealth(
  nodes: ClusterNodeProcess[],
  ok: (status: string) => boolean,
  timeoutMs: number,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = await Promise.all(nodes.map(async (n) => (await nodeHealth(n)).status));
    if (statuses.every(ok)) return statuses;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms: /healthz statuses ${statuses.join(", ")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
