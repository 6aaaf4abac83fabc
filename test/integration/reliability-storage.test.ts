import * as nodeFs from "node:fs";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBot, definePlugin, type Bot } from "topicbot";
import { createClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { FileDeliveryStore } from "../../src/state/delivery/file.js";
import type { JournalFs } from "../../src/state/journal.js";
import { captureLog } from "../helpers/log.js";
import { bin, cleanEnv, watch, sandboxServerLines } from "../helpers/process.js";
import { post, until } from "../helpers/reliability.js";

const echo = definePlugin({
  name: "echo",
  setup(bot) {
    bot.hear(/^echo (.+)$/, (ctx) => ctx.reply(ctx.match[1]!));
  },
});

let dir: string;
let sandbox: Sandbox | undefined;
let bot: Bot | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "topicbot-storage-fail-"));
});
afterEach(async () => {
  await bot?.stop();
  await sandbox?.close();
  bot = sandbox = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe("storage that fails is visible and safe", () => {
  it("a full disk: replies still go out, one log line per failure streak, /healthz degraded, a metric counts", async () => {
    let full = false;
    const fs: JournalFs = {
      ...nodeFs,
      writeSync: ((...args: unknown[]) => {
        if (full)
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
            code: "ENOSPC",
          });
        return (nodeFs.writeSync as (...a: unknown[]) => number)(...args);
      }) as typeof nodeFs.writeSync,
    };
    sandbox = await startSandbox({ heartbeatSeconds: 0.2 });
    const log = captureLog();
    bot = createBot({
      server: { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey },
      plugins: [echo],
      respondTo: "all",
      rateLimit: false,
      handleSignals: false,
      logger: log.logger,
      http: { port: 0 },
      delivery: await FileDeliveryStore.open({ path: join(dir, "j.jsonl"), fs }),
    });
    await bot.start();
    const s = sandbox;
    const replies = () =>
      s.realm.messages.filter((m) => m.senderId === s.bot.userId).map((m) => m.content);
    const health = async () =>
      (await (await fetch(`${bot!.webhookUrl}/healthz`)).json()) as Record<string, unknown>;
    const failures = async () =>
      Number(
        /topicbot_storage_write_failures_total\{store="delivery"\} (\d+)/.exec(
          await (await fetch(`${bot!.webhookUrl}/metrics`)).text(),
        )?.[1] ?? 0,
      );
    const streakLines = () =>
      log.lines().filter((l) => String(l.msg).startsWith("storage: writing delivery failed"));

    post(s, "echo one", { topic: "disk" });
    await until(() => replies().length === 1, "the first reply", 10_000);
    expect((await health()).status).toBe("ok");

    full = true;
    for (const word of ["two", "three", "four"]) post(s, `echo ${word}`, { topic: "disk" });
    await until(() => replies().length === 4, "replies while the disk is full", 10_000);
    await until(() => streakLines().length > 0, "the failure log line", 5_000);
    expect(await health()).toMatchObject({ status: "degraded", degraded: ["storage"] });
    expect(await failures()).toBeGreaterThanOrEqual(6); // an intent and an outcome per reply, and watermarks
    expect(streakLines(), "one log line for the whole streak").toHaveLength(1);
    expect(streakLines()[0]).toMatchObject({ err: { message: expect.stringMatching(/ENOSPC/) } });

    full = false;
    post(s, "echo five", { topic: "disk" });
    await until(() => replies().length === 5, "a reply once the disk has room", 10_000);
    await until(
      () => log.lines().some((l) => l.msg === "storage: writing delivery works again"),
      "the recovery log line",
      5_000,
    );
    expect((await health()).status).toBe("ok");
    expect(replies()).toEqual(["one", "two", "three", "four", "five"]);
  }, 60_000);

  it("SIGTERM while the store file cannot be written: exit code 4 and a message naming what was not saved", async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 1 });
    const plugin = `export default {
  name: "note",
  setup(bot) {
    bot.command("note", { description: "Remembers a note" }, async (ctx) => {
      await bot.storage.set("note", ctx.message.id);
      await ctx.reply("noted");
    });
  },
};
`;
    await writeFile(join(dir, "note.mjs"), plugin);
    await mkdir(join(dir, "data"));
    await writeFile(
      join(dir, "bot.config.yaml"),
      [
        ...sandboxServerLines(sandbox),
        "channels: [general]",
        // Writes wait a minute, so the note is still pending when the bot is told to stop.
        "storage: { type: file, path: data/bot.json, flushDelayMs: 60000 }",
        "logging: { level: info, format: json }",
        "plugins: [./note.mjs]",
        "",
      ].join("\n"),
    );
    const child = spawn(process.execPath, [bin, "start", "--config", "bot.config.yaml"], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const stdout = watch(child.stdout!);
      const stderr = watch(child.stderr!);
      await stdout.waitFor(/"msg":"ready"/, 30_000);
      const mia = sandbox.user("mia");
      const human = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
      await human.messages.send({ type: "channel", to: "general", topic: "t", content: "!note" });
      await human.close();
      const s = sandbox;
      await until(
        () => s.realm.messages.some((m) => m.senderId === s.bot.userId && m.content === "noted"),
        "the bot's answer",
        15_000,
      );
      // The store's directory becomes a plain file: nothing can be written there (root included).
      await rename(join(dir, "data"), join(dir, "data.moved"));
      await writeFile(join(dir, "data"), "not a directory");
      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      expect(stderr.text).toMatch(
        /error: storage: could not save plugin storage, sessions and open questions changed since the last write \(storage: could not write .*data\/bot\.json: .*ENOTDIR/,
      );
      expect(code).toBe(4);
      expect(stderr.text + stdout.text).not.toMatch(/Unhandled| {4}at /);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 60_000);
});
