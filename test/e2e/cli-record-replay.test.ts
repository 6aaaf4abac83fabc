// `bot record` and `bot replay --diff` through the built executable: a cassette written, then replayed against the sandbox.
import { afterEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import {
  bin,
  cleanEnv,
  pingAndAwaitAnswer,
  runBot,
  sandboxServerLines,
  watch,
} from "../helpers/process.js";

let dir: string | undefined;
let sandbox: Sandbox | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  child?.kill("SIGKILL");
  child = undefined;
  await sandbox?.close();
  sandbox = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("bot record, then bot replay --diff", () => {
  it("records a sanitized cassette of a !ping and finds the sandbox answering as recorded", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-record-e2e-"));
    sandbox = await startSandbox();
    await writeFile(
      join(dir, "bot.config.yaml"),
      [...sandboxServerLines(sandbox), "plugins: [ping]", "logging: { format: json }", ""].join(
        "\n",
      ),
    );
    child = spawn(process.execPath, [bin, "record", "-o", "incident.jsonl"], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    await stdout.waitFor(/"msg":"ready"/, 30_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${stderr.text}`);
    });
    expect(await pingAndAwaitAnswer(sandbox, "e2e")).toBe("pong");
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    child = undefined;
    expect(code).toBe(0);
    const text = await readFile(join(dir, "incident.jsonl"), "utf8");
    expect(text.split("\n")[0]).toMatch(/^\{"type":"cassette","version":1,/);
    expect(text).toContain('"path":"/register"');
    for (const account of sandbox.users) {
      expect(text).not.toContain(account.apiKey);
      expect(text).not.toContain(account.email);
    }
    // The realm's own host, which its answers tell (realm_url) and the bot's address (loopback) is not.
    expect(sandbox.realm.settings.host).not.toBe(new URL(sandbox.url).host);
    expect(text).toContain('"realm_url":"https://server.invalid"');
    expect(text).not.toContain(sandbox.realm.settings.host);
    const replay = await runBot(["replay", "--diff", "incident.jsonl"], {
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(replay.stderr).toBe("");
    expect(replay.stdout).toContain("None: every replayed answer");
    expect(replay.code).toBe(0);
  }, 90_000);
});
