// 15 commands sent while `bot start` was down, 1.5 s apart, all answered after the restart: catch-up is not a flood.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, expect, it } from "vitest";
import { createClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { bin, cleanEnv, killIfRunning, sandboxServerLines, watch } from "../helpers/process.js";

let sandbox: Sandbox | undefined;
let dir: string | undefined;
let child: ChildProcess | undefined;
afterAll(async () => {
  await killIfRunning(child);
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function start(cwd: string) {
  child = spawn(process.execPath, [bin, "start"], {
    cwd,
    env: { ...cleanEnv(), NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout = watch(child.stdout!);
  await stdout.waitFor(/"msg":"ready"/, 30_000);
  return { child, stdout };
}

it("answers all 15 commands sent during a restart (old code: 5 refused as a flood)", async () => {
  sandbox = await startSandbox({ heartbeatSeconds: 1 });
  dir = await mkdtemp(join(tmpdir(), "topicbot-catch-up-"));
  await writeFile(
    join(dir, "bot.config.yaml"),
    [
      ...sandboxServerLines(sandbox),
      "channels: [general]",
      "storage: { type: file, path: data/bot.json }",
      "plugins: [ping]",
      "",
    ].join("\n"),
  );
  const s = sandbox;
  const answers = () =>
    s.realm.messages.filter((m) => m.senderId === s.bot.userId && m.topic === "restart");
  const mia = s.user("mia");
  const human = createClient({ site: s.url, email: mia.email, apiKey: mia.apiKey });
  try {
    const first = await start(dir);
    await human.messages.send({
      type: "channel",
      to: "general",
      topic: "restart",
      content: "!ping",
    });
    for (let i = 0; i < 100 && answers().length < 1; i++) await sleep(100);
    expect(answers()).toHaveLength(1);
    first.child.kill("SIGTERM");
    const [code] = (await once(first.child, "exit")) as [number];
    expect(code).toBe(0);

    // While the bot is down: 15 commands, 1.5 s apart (the default limit is 10 in any 10 s).
    for (let i = 0; i < 15; i++) {
      await human.messages.send({
        type: "channel",
        to: "general",
        topic: "restart",
        content: "!ping",
      });
      if (i < 14) await sleep(1_500);
    }
    const second = await start(dir);
    for (let i = 0; i < 200 && answers().length < 16; i++) await sleep(100);
    expect(answers().map((m) => m.content)).toEqual(Array(16).fill("pong"));
    expect(second.stdout.text).not.toContain("command rate limit");
    second.child.kill("SIGTERM");
    await once(second.child, "exit");
  } finally {
    await human.close();
  }
}, 120_000);
