// The SIGKILL chaos run: real `bot start` processes on file storage, killed at random points while users send commands.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { bin, cleanEnv, watch } from "../helpers/process.js";
import { addUsers, botReplies, fileStoreConfig, sendSurely, waitUntil } from "./helpers.js";

export interface KillRunOptions {
  kills: number;
  users: number;
  topics: number;
  /** Pause between one user's commands, in ms (5 users at 500 ms: about 10 commands a second). */
  sendEveryMs: number;
  /** Commands each user sends (a bounded backlog: bots that live a second each cannot keep up with an endless stream). */
  perUser: number;
  /**
   * Kill every process while it starts, on a fresh store: the first one as it logs "event queue
   * registered" (the commands begin at that line), the others at one of `STARTUP_POINTS` in turn.
   */
  startup?: boolean;
}

/** The log lines of a start, in order (`bot start` with a server and channels configured). */
export const STARTUP_LINES = [
  "connecting",
  "channel subscriptions checked",
  "event queue registered",
  "bot started",
  "ready",
] as const;

/**
 * Where a start-up kill lands: 20-200 ms after spawn, the instant the sandbox has registered the
 * process's queue (seen from the server, before the process reads the answer), or as one of the
 * start-up lines appears.
 */
export type StartupPoint =
  "20-200 ms after spawn" | "queue registered on the server" | (typeof STARTUP_LINES)[number];
export const STARTUP_POINTS: readonly StartupPoint[] = [
  "20-200 ms after spawn",
  "queue registered on the server",
  ...STARTUP_LINES,
];

/** Where each kill landed. */
export type KillPoint = "random" | "journal write" | "catch-up" | StartupPoint;

const lineOf = (msg: string): RegExp => new RegExp(`"msg":"${msg}"`);

export interface KillRunResult {
  sandbox: Sandbox;
  commands: { id: number; topic: string }[];
  kills: Record<KillPoint, number>;
  /** Kills that landed before the bot said it was ready. */
  beforeReady: number;
  seconds: number;
  close(): Promise<void>;
}

/** Echo: every reply names the message it answers. A plain object: the temp dir cannot import topicbot. */
const ECHO_PLUGIN = `export default {
  name: "echo",
  setup(bot) {
    bot.command("echo", { description: "Names the message it answers" }, (ctx) => ctx.reply("echo " + ctx.message.id));
  },
};
`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const lineCount = (path: string): number => {
  try {
    const text = readFileSync(path, "utf8");
    let n = 0;
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
    return n;
  } catch {
    return 0;
  }
};

/** Resolves once `count()` has grown by `n` (checked every 2 ms), or after 30 s. */
/**
 * Waits until `count` has grown by `n` (at most 30 s), or until `idle` says no more growth can
 * come: once the senders are done and every command is answered, waiting would only burn the
 * 30 s, kill after kill, and run the test past its timeout.
 */
async function after(count: () => number, n: number, idle: () => boolean): Promise<void> {
  const target = count() + n;
  const deadline = Date.now() + 30_000;
  while (count() < target && Date.now() < deadline && !idle()) await pause(2);
}

/**
 * Starts a sandbox, then `bot start` again and again on one file store while `users` send
 * `!echo` into `topics` topics. Each process is killed with SIGKILL: at a random moment, right
 * as the delivery journal grows (a storage write), or while it catches up on what was sent while
 * the previous one was dead. After the last kill a process runs until every command is answered
 * and is stopped with SIGTERM; the caller checks the sandbox's messages.
 */
export async function killRun(options: KillRunOptions): Promise<KillRunResult> {
  const started = Date.now();
  const sandbox = await startSandbox({ heartbeatSeconds: 2 });
  const dir = await mkdtemp(join(tmpdir(), "topicbot-sigkill-"));
  if (process.env.CHAOS_KEEP) console.log(`chaos run in ${dir}`);
  const journal = join(dir, "data", "bot.json.delivery.jsonl");
  await writeFile(join(dir, "echo.mjs"), ECHO_PLUGIN);
  await writeFile(join(dir, "bot.config.yaml"), fileStoreConfig(sandbox, "echo.mjs"));
  const users = addUsers(sandbox, options.users);
  const commands: { id: number; topic: string }[] = [];
  let sending = true;
  let sendersDone = false;
  let senders: Promise<void>[] = [];
  const startSending = () => {
    senders = users.map(async (user, u) => {
      for (let i = 0; sending && i < options.perUser; i++) {
        const topic = `kill ${(u + i) % options.topics}`;
        const id = await sendSurely(user, topic, "!echo");
        commands.push({ id, topic });
        await pause(options.sendEveryMs * (0.5 + Math.random()));
      }
    });
    void Promise.allSettled(senders).then(() => (sendersDone = true));
  };

  const spawnBot = () => {
    // CHAOS_BIN runs another build (e.g. an older version's) to compare.
    const child = spawn(
      process.execPath,
      [process.env.CHAOS_BIN ?? bin, "start", "--config", "bot.config.yaml"],
      {
        cwd: dir,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    return { child, stdout: watch(child.stdout!), stderr: watch(child.stderr!) };
  };
  const killed = async (child: ChildProcess) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await once(child, "exit");
    }
  };

  const queuesSeen = new Set<string>();
  /** Resolves (checked every millisecond) once the sandbox holds a bot queue not seen before. */
  const newQueue = async (timeoutMs: number): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const fresh = sandbox.realm.queues
        .forUser(sandbox.bot.userId)
        .filter((q) => !queuesSeen.has(q.id));
      for (const q of fresh) queuesSeen.add(q.id);
      if (fresh.length > 0) return;
      if (Date.now() > deadline) throw new Error(`no queue registered within ${timeoutMs} ms`);
      await pause(1);
    }
  };
  const replies = () => botReplies(sandbox).length;
  /** Nothing more will happen: every command sent, and every one answered. */
  const idle = () => sendersDone && replies() >= commands.length;
  // Journal records; a build without the journal (CHAOS_BIN) counts replies instead.
  const records = () => (existsSync(journal) ? lineCount(journal) : replies());
  const kills = Object.fromEntries(
    ["random", "journal write", "catch-up", ...STARTUP_POINTS].map((p) => [p, 0]),
  ) as Record<KillPoint, number>;
  let beforeReady = 0;
  try {
    for (let k = 0; k < options.kills; k++) {
      // The queues of the processes before this one are not its own.
      for (const q of sandbox.realm.queues.forUser(sandbox.bot.userId)) queuesSeen.add(q.id);
      const { child, stdout, stderr } = spawnBot();
      if (k === 0 && !options.startup) {
        // A first start answers what comes after it: the commands begin once it is ready.
        await stdout.waitFor(lineOf("ready"), 30_000);
        startSending();
      }
      const point: KillPoint = options.startup
        ? k === 0
          ? "queue registered on the server"
          : STARTUP_POINTS[(k - 1) % STARTUP_POINTS.length]!
        : (["random", "journal write", "catch-up"] as const)[k % 3]!;
      try {
        // Kills are placed by progress (replies posted, records added to the journal), not by the
        // clock, so each process does some work however loaded the machine is.
        if (options.startup) {
          // Start-up kills: by the clock right after spawn, or the moment a start-up line appears.
          if (point === "20-200 ms after spawn") await pause(20 + Math.random() * 180);
          else if (point === "queue registered on the server") await newQueue(60_000);
          else await stdout.waitFor(lineOf(point), 60_000);
          // On a fresh store the commands begin the instant the first queue is registered: the
          // first instant the promise covers.
          if (k === 0) startSending();
        } else if (point === "random") {
          // Mostly while it runs; every fifth one while it starts (loading, registering, catching up).
          if (k % 5 !== 0) await stdout.waitFor(/"msg":"ready"/, 60_000).catch(() => undefined);
          await after(replies, Math.floor(Math.random() * 20), idle);
        } else if (point === "catch-up") {
          // While handling what piled up when the last one died.
          // A backlog whose commands the last one had journaled is resumed from the journal, with
          // no catch-up line: once the backlog is answered, nothing is left to catch up on.
          const owed = commands.length;
          await Promise.race([
            stdout.waitFor(/catching up on missed messages/, 60_000).catch(() => undefined),
            after(replies, Math.max(0, owed - replies()), () => false),
          ]);
          await after(replies, Math.floor(Math.random() * 4), idle);
        } else {
          // Right as a record lands: between an intent and its send, a send and its outcome.
          await stdout.waitFor(/"msg":"ready"/, 60_000).catch(() => undefined);
          await after(records, 1 + Math.floor(Math.random() * 10), idle);
        }
        if (!/"msg":"ready"/.test(stdout.text)) beforeReady++;
        kills[point]++;
        if (child.exitCode !== null)
          throw new Error(
            `bot start exited with ${child.exitCode} before its kill:\n${stderr.text}\n${stdout.text}`,
          );
      } finally {
        await killed(child);
      }
    }
    sending = false;
    await Promise.all(senders);

    const last = spawnBot();
    try {
      const answered = () => new Set(botReplies(sandbox).map((r) => r.answers));
      // One scan of the sandbox per check (not one per command: at 2,000 commands that starves
      // the sandbox, which runs in this process).
      await waitUntil(
        () => {
          const seen = answered();
          return commands.every((c) => seen.has(c.id));
        },
        120_000,
        () =>
          `${answered().size} of ${commands.length} commands answered after the last start ` +
          `(unanswered: ${commands
            .filter((c) => !answered().has(c.id))
            .slice(0, 20)
            .map((c) => c.id)
            .join(" ")}); ` +
          `journal tail:\n${readFileSync(journal, "utf8").split("\n").slice(-6).join("\n")}\n` +
          `its log:\n${last.stdout.text
            .split("\n")
            .filter((l) => !/"level":(10|20)/.test(l))
            .slice(-30)
            .join("\n")}`,
      );
      await pause(500);
      // Stopped once it has started: a SIGTERM before its handlers are installed (a loaded
      // machine, an idle run whose commands were all answered already) just kills it.
      await last.stdout.waitFor(lineOf("ready"), 60_000);
      last.child.kill("SIGTERM");
      const [code] = (await once(last.child, "exit")) as [number | null];
      if (code !== 0) throw new Error(`bot start ended with ${code}:\n${last.stderr.text}`);
    } finally {
      await killed(last.child);
    }
  } finally {
    sending = false;
    await Promise.allSettled(senders);
    await Promise.all(users.map((c) => c.close()));
  }
  return {
    sandbox,
    commands,
    kills,
    beforeReady,
    seconds: Math.round((Date.now() - started) / 1000),
    async close() {
      await sandbox.close();
      if (!process.env.CHAOS_KEEP) await rm(dir, { recursive: true, force: true });
    },
  };
}
