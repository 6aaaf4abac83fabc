// `bot start` under a burst of commands in one topic: its young generation keeps its start-up size (`memory.youngGeneration`).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";
import { sendToChannel } from "../../src/sandbox/send.js";
import { bin, cleanEnv, killIfRunning, sandboxServerLines, watch } from "../helpers/process.js";

/** Enough `!ping`s to make V8 double a young generation left to grow (it does by about 1,000). */
const BURST = 2_000;
const probe = pathToFileURL(
  fileURLToPath(new URL("../helpers/young-generation-probe.mjs", import.meta.url)),
).href;

describe("bot start under a burst of commands", () => {
  let sandbox: Sandbox;
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 30 });
    dir = await mkdtemp(join(tmpdir(), "topicbot-burst-"));
  });
  afterAll(async () => {
    await killIfRunning(child);
    await sandbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The child's young generation now, in bytes, read through the preloaded probe. */
  async function youngGeneration(pid: number, file: string): Promise<number> {
    await rm(file, { force: true });
    process.kill(pid, "SIGUSR2");
    for (let i = 0; i < 500; i++) {
      const text = await readFile(file, "utf8").catch(() => undefined);
      if (text !== undefined) return (JSON.parse(text) as { newSpaceBytes: number }).newSpaceBytes;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error("the young-generation probe in bot start did not answer");
  }

  it("answers every command without growing V8's young generation past its start-up size", async () => {
    const config = join(dir, "bot.config.yaml");
    await writeFile(
      config,
      [
        ...sandboxServerLines(sandbox),
        "logging: { level: debug, format: json }",
        "rateLimit: false",
        "http: { port: 0 }",
        "plugins: [ping]",
        "",
      ].join("\n"),
    );
    const probeFile = join(dir, "young-generation.json");
    child = spawn(process.execPath, ["--import", probe, bin, "start", "-c", config], {
      env: { ...cleanEnv(), NODE_OPTIONS: "", TOPICBOT_YOUNG_GENERATION_PROBE: probeFile },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const [ready] = await stdout.waitFor(/.*"msg":"ready".*/, 30_000);
    expect(stdout.text).toMatch(/"youngGenerationMiB":\d+.*"msg":"memory.youngGeneration hold/);
    // Set once the bot has started: start-up runs with V8's own sizing (held from the config on,
    // its scavenges cost ~30 ms of CPU before the first answer).
    expect(stdout.text).toMatch(/"msg":"bot started"[^]*"msg":"memory.youngGeneration hold/);
    const metrics = `${/"url":"(http:[^"]+?)\/?"/.exec(ready)![1]}/metrics`;
    const before = await youngGeneration(child.pid!, probeFile);

    const { realm } = sandbox;
    const sender = realm.userByEmail(sandbox.user("mia").email)!;
    const channel = realm.channelByName("general")!;
    for (let i = 0; i < BURST; i++)
      sendToChannel(realm, {
        sender,
        channel,
        topic: "burst",
        content: "!ping",
        client: "website",
      });
    // Replies posted (the bot's own replies come back as messages, so "handled" counts more).
    let answered = 0;
    const deadline = Date.now() + 120_000;
    while (answered < BURST && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      const text = await (await fetch(metrics)).text();
      answered = Number(
        /topicbot_api_calls_total\{endpoint="POST \/messages",status="200"\} (\d+)/.exec(
          text,
        )?.[1] ?? 0,
      );
    }
    expect(answered).toBe(BURST);
    // Left to V8's sizing (`youngGeneration: grow`) it doubles (16 → 32 MiB on Node 20).
    expect(await youngGeneration(child.pid!, probeFile)).toBeLessThanOrEqual(before);
  }, 180_000);
});
