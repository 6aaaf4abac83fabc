// `bot start` on SIGHUP: edited plugin code and the plugin list applied, restart-only keys named, a bad config or a failing setup refused with the old plugins still answering.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { bin, cleanEnv, killIfRunning, sandboxServerLines, watch } from "../helpers/process.js";

const hello = (version: string) => `export default {
  name: "hello",
  setup(bot) {
    bot.command("hello", {}, (ctx) => ctx.reply("hello ${version}"));
  },
};
`;

const failing = `export default {
  name: "flaky",
  setup() {
    throw new Error("the flaky service is down");
  },
};
`;

describe("bot start: SIGHUP reloads the config", () => {
  let sandbox: Sandbox;
  let dir: string;
  let child: ChildProcess | undefined;
  let stdout: ReturnType<typeof watch>;
  let human: ApiClient;
  const config = (plugins: string[], extra: string[] = []) =>
    [
      ...sandboxServerLines(sandbox),
      "channels: [general]",
      "rateLimit: false",
      "logging: { format: json }",
      `plugins: [${plugins.join(", ")}]`,
      ...extra,
      "",
    ].join("\n");

  beforeAll(async () => {
    sandbox = await startSandbox();
    dir = await mkdtemp(join(tmpdir(), "topicbot-reload-e2e-"));
    await writeFile(join(dir, "hello.mjs"), hello("v1"));
    await writeFile(join(dir, "flaky.mjs"), failing);
    await writeFile(join(dir, "bot.config.yaml"), config(["./hello.mjs"]));
    const mia = sandbox.user("mia");
    human = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
    child = spawn(process.execPath, [bin, "start"], {
      cwd: dir,
      env: { ...cleanEnv(), NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    stdout = watch(child.stdout!);
    await stdout.waitFor(/"msg":"ready"/, 30_000);
  }, 60_000);

  afterAll(async () => {
    await killIfRunning(child);
    await human?.close();
    await sandbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Sends `content` into `topic` and resolves with the bot's answer there (15 s at most). */
  async function ask(topic: string, content: string): Promise<string> {
    const from = sandbox.realm.messages.length;
    await human.messages.send({ type: "channel", to: "general", topic, content });
    const deadline = Date.now() + 15_000;
    for (;;) {
      const answer = sandbox.realm.messages
        .slice(from)
        .find((m) => m.senderId === sandbox.bot.userId && m.topic === topic);
      if (answer) return answer.content;
      if (Date.now() > deadline)
        throw new Error(`no answer to ${content} in 15 s:\n${stdout.text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Sends SIGHUP and waits for the `n`-th line matching `pattern`. */
  async function hup(pattern: RegExp, n: number): Promise<string> {
    child!.kill("SIGHUP");
    const deadline = Date.now() + 30_000;
    for (;;) {
      const lines = stdout.text.split("\n").filter((l) => pattern.test(l));
      if (lines.length >= n) return lines[n - 1]!;
      if (Date.now() > deadline) throw new Error(`no ${pattern} after SIGHUP:\n${stdout.text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("applies edited plugin code and a new plugin list, and names the keys that need a restart", async () => {
    expect(await ask("reload", "!hello")).toBe("hello v1");
    await writeFile(join(dir, "hello.mjs"), hello("v2"));
    await writeFile(
      join(dir, "bot.config.yaml"),
      config(["./hello.mjs", "ping"], ["concurrency: 3"]),
    );
    const warned = await hup(/"msg":"reload: /, 1);
    expect(warned).toContain("concurrency changed in bot.config.yaml");
    expect(warned).toContain("take");
    expect(warned).toContain("restart");
    await hup(/"msg":"configuration reloaded"/, 1);
    expect(await ask("reload", "!hello")).toBe("hello v2");
    expect(await ask("reload", "!ping")).toBe("pong");
  });

  it("keeps the running plugins when the new config is invalid, naming the key and the file", async () => {
    await writeFile(join(dir, "bot.config.yaml"), config(["./hello.mjs"], ["concurrency: lots"]));
    const failed = await hup(/"msg":"reload failed: /, 1);
    expect(failed).toMatch(/bot\.config\.yaml:\d+:\d+: concurrency: /);
    expect(failed).toContain("keeps running with the configuration it had");
    expect(await ask("invalid", "!hello")).toBe("hello v2");
    expect(await ask("invalid", "!ping")).toBe("pong");
  });

  it("keeps the running plugins when a plugin of the new config fails in setup", async () => {
    await writeFile(join(dir, "bot.config.yaml"), config(["./hello.mjs", "./flaky.mjs"]));
    const failed = await hup(/"msg":"reload failed: /, 2);
    expect(failed).toContain('plugin \\"flaky\\" failed in setup: the flaky service is down');
    expect(await ask("setup", "!ping")).toBe("pong");
  });

  it("stops cleanly on SIGTERM after the reloads", async () => {
    child!.kill("SIGTERM");
    const [code] = (await once(child!, "exit")) as [number | null];
    expect(code).toBe(0);
  });
});
