// Test helper: a real redis-server on a free loopback port in a temporary directory (AOF on), stopped after.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";

export interface TestRedis {
  url: string;
  port: number;
  /** A client for the test's own reads. */
  client: Redis;
  /** Stops redis-server (SIGTERM, which writes the AOF) and starts it again on the same port and directory. */
  restart(): Promise<void>;
  /** Kills redis-server (SIGKILL: a crash; AOF with fsync always keeps what it acknowledged). */
  kill(): Promise<void>;
  /** Starts it again (after `kill`) on the same port and directory: it loads its AOF. */
  start(): Promise<void>;
  /** Freezes redis-server (SIGSTOP): connections stay open and nothing answers, until `thaw`. */
  freeze(): void;
  /** Lets a frozen redis-server run on (SIGCONT): it answers what it was sent meanwhile. */
  thaw(): void;
  close(): Promise<void>;
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

/** Starts redis-server; fails saying what to install when it is missing. */
export async function startRedis(): Promise<TestRedis> {
  if (spawnSync("redis-server", ["--version"]).error)
    throw new Error(
      "redis-server is not installed: the cluster tests need it (apt-get install -y redis-server)",
    );
  const dir = await mkdtemp(join(tmpdir(), "topicbot-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const launch = async () => {
    child = spawn(
      "redis-server",
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        dir,
        "--appendonly",
        "yes",
        "--appendfsync",
        "always",
        "--save",
        "",
        "--protected-mode",
        "no",
        "--daemonize",
        "no",
        "--logfile",
        join(dir, "redis.log"),
      ],
      { stdio: "ignore" },
    );
    const probe = new Redis({
      port,
      host: "127.0.0.1",
      lazyConnect: true,
      retryStrategy: () => 50,
      maxRetriesPerRequest: 1,
    });
    probe.on("error", () => undefined);
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await probe.connect().catch(() => undefined);
        if ((await probe.ping()) === "PONG") break;
      } catch {
        if (Date.now() > deadline)
          throw new Error(`redis-server did not answer on port ${port} within 10 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    probe.disconnect();
  };
  const halt = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill(signal);
    await exited;
  };
  await launch();
  const client = new Redis({ port, host: "127.0.0.1", retryStrategy: () => 100 });
  client.on("error", () => undefined); // reconnects while the test restarts redis-server
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    client,
    async restart() {
      await halt();
      await launch();
    },
    kill: () => halt("SIGKILL"),
    start: launch,
    freeze: () => void child?.kill("SIGSTOP"),
    thaw: () => void child?.kill("SIGCONT"),
    async close() {
      client.disconnect();
      child?.kill("SIGCONT");
      await halt();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
