// Test helper: spawning the real `bot` executable and watching its output with deadlines.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { createClient } from "topicbot/client";
import type { Sandbox } from "topicbot/sandbox";

export const bin = fileURLToPath(new URL("../../bin/bot.js", import.meta.url));

/** The environment without ZULIP_* variables, so no test ever connects to a real server. */
export const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ZULIP_")));

/** Collects a stream's text and lets a test wait, with a deadline, for a pattern to appear. */
export function watch(stream: NodeJS.ReadableStream) {
  let text = "";
  const waiters = new Set<() => void>();
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    text += chunk;
    for (const w of waiters) w();
  });
  return {
    get text() {
      return text;
    },
    async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(text);
        if (match) return match;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`timed out waiting for ${pattern}; output so far:\n${text}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          const wake = () => {
            clearTimeout(timer);
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
        });
      }
    },
  };
}

/**
 * Starts `<binPath> dev --no-watch` in `cwd` with pipes (the dev console on standard input and
 * output); `fail` rethrows a waiting error with what the process wrote on standard error.
 */
export function spawnDev(binPath: string, cwd: string) {
  const child = spawn(process.execPath, [binPath, "dev", "--no-watch"], {
    cwd,
    env: { ...cleanEnv(), NODE_OPTIONS: "", FORCE_COLOR: "0" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout = watch(child.stdout!);
  const stderr = watch(child.stderr!);
  const fail = (error: Error): never => {
    throw new Error(`${error.message}\nstderr:\n${stderr.text}`);
  };
  return { child, stdout, stderr, fail };
}

/** Runs `bot <args>` to the end with `input` on standard input; kills it after `timeoutMs`. */
export async function runBot(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child: ChildProcess = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout = watch(child.stdout!);
  const stderr = watch(child.stderr!);
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
  child.stdin!.end(options.input ?? "");
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** The `server:` lines of a bot.config.yaml whose bot account is the sandbox's bot. */
export function sandboxServerLines(sandbox: {
  url: string;
  bot: { email: string; apiKey: string };
}): string[] {
  return [
    "server:",
    `  site: ${sandbox.url}`,
    `  email: ${sandbox.bot.email}`,
    `  apiKey: ${sandbox.bot.apiKey}`,
  ];
}

/**
 * Posts `!ping` as the sandbox's `mia` into `topic` of general and resolves with the bot's answer
 * there; rejects after 15 s without one.
 */
export async function pingAndAwaitAnswer(sandbox: Sandbox, topic: string): Promise<string> {
  let stop = (): void => {};
  const answered = new Promise<string>((resolve) => {
    stop = sandbox.realm.onMessage((m) => {
      if (m.senderId === sandbox.bot.userId && m.topic === topic) resolve(m.content);
    });
  });
  const mia = sandbox.user("mia");
  const human = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
  let timer: NodeJS.Timeout | undefined;
  try {
    await human.messages.send({ type: "channel", to: "general", topic, content: "!ping" });
    return await Promise.race([
      answered,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in topic ${topic} in 15 s`)), 15_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    stop();
    await human.close();
  }
}

/** Kills `child` (SIGKILL) if it is still running, and waits for it to exit: a test's clean-up. */
export async function killIfRunning(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}
