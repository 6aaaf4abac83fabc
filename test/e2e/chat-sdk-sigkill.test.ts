// examples/chat-sdk under `bot start`, SIGKILLed mid-work and started again: every mention answered, none twice.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { bin, cleanEnv, watch } from "../helpers/process.js";
import { post, until } from "../helpers/reliability.js";

const example = fileURLToPath(new URL("../../examples/chat-sdk/index.ts", import.meta.url));
const TOPICS = 8;

describe("a Chat SDK bot under bot start, killed and restarted", () => {
  let sandbox: Sandbox | undefined;
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    await sandbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("answers each of the mentions once across a SIGKILL between answering and finishing", async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 0.5 });
    dir = await mkdtemp(join(tmpdir(), "topicbot-chat-sdk-"));
    await writeFile(
      join(dir, "bot.config.yaml"),
      [
        "server:",
        `  site: ${sandbox.url}`,
        `  email: ${sandbox.bot.email}`,
        `  apiKey: ${sandbox.bot.apiKey}`,
        "storage: { type: file, path: data/bot.json }",
        `plugins: [${JSON.stringify(example)}]`,
        "",
      ].join("\n"),
    );
    const start = async (): Promise<ChildProcess> => {
      const started = spawn(process.execPath, [bin, "start"], {
        cwd: dir,
        env: { ...cleanEnv(), NODE_OPTIONS: "", LOG_LEVEL: "info" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const stdout = watch(started.stdout!);
      watch(started.stderr!);
      await stdout.waitFor(/"msg":"ready"/, 60_000);
      return started;
    };
    const answers = () => sandbox!.realm.messages.filter((m) => m.senderId === sandbox!.bot.userId);

    // Run 1 posts its answers, then hangs on each reaction: killed there, every message is
    // answered on the server but not finished in the journal, the window a crash hits.
    const hang = sandbox.faults.add({
      route: "POST /messages/{message_id}/reactions",
      delayMs: 600_000,
    });
    child = await start();
    for (let i = 0; i < TOPICS; i++)
      post(sandbox, `@**${sandbox.bot.fullName}** hello ${i}`, { topic: `topic ${i}` });
    await until(() => answers().length === TOPICS, "run 1's answers", 30_000);
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(answers().every((m) => m.reactions.length === 0)).toBe(true);
    sandbox.faults.remove(hang);

    child = await start();
    // Run 2 handles the unfinished messages again: the answers are recognised, the reactions added.
    await until(
      () => answers().every((m) => m.reactions.length === 1),
      "run 2's reactions",
      60_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // any double would be out by now
    child.kill("SIGTERM");
    await once(child, "exit");

    const perTopic = new Map<string, number>();
    for (const m of answers()) perTopic.set(m.topic, (perTopic.get(m.topic) ?? 0) + 1);
    expect([...perTopic.keys()].sort()).toEqual(
      Array.from({ length: TOPICS }, (_, i) => `topic ${i}`).sort(),
    );
    expect([...perTopic.values()].every((n) => n === 1)).toBe(true);
    expect(answers().every((m) => /^Hi! I'm following this topic now/.test(m.content))).toBe(true);
  }, 180_000);
});
