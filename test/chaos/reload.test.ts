// Chaos: SIGHUP reloads of a real `bot start` process under a stream of commands (plugin code, settings, log level, a bad config between): 0 lost, 0 twice.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { bin, cleanEnv, killIfRunning, watch } from "../helpers/process.js";
import {
  addUsers,
  botReplies,
  expectEachAnsweredOnceInOrder,
  fileStoreConfig,
  sendSurely,
  waitUntil,
} from "./helpers.js";

/** `npm run chaos` may set CHAOS_RELOADS higher; `npm test` runs 8. */
const RELOADS = Number(process.env.CHAOS_RELOADS ?? 8);

/** The echo plugin, load `version` of its code: `!echo` answers `echo <message id>` in every version. */
const echoPlugin = (version: number) => `// version ${version}
export default {
  name: "echo",
  setup(bot) {
    bot.command("echo", { description: "Names the message it answers (v${version})" }, (ctx) => ctx.reply("echo " + ctx.message.id));
  },
};
`;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("chaos: SIGHUP reloads under load", () => {
  let sandbox: Sandbox | undefined;
  let dir: string | undefined;
  let child: ReturnType<typeof spawn> | undefined;
  afterAll(async () => {
    await killIfRunning(child);
    await sandbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`${RELOADS} reloads of a real bot process while users send commands: 0 lost, 0 twice, per-topic order`, async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 2 });
    dir = await mkdtemp(join(tmpdir(), "topicbot-reload-"));
    const config = join(dir, "bot.config.yaml");
    const good = fileStoreConfig(sandbox, "echo.mjs");
    await writeFile(join(dir, "echo.mjs"), echoPlugin(0));
    await writeFile(config, good);
    child = spawn(process.execPath, [bin, "start", "--config", "bot.config.yaml"], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    await stdout.waitFor(/"msg":"ready"/, 60_000);

    const users = addUsers(sandbox, 4);
    const commands: { id: number; topic: string }[] = [];
    let sending = true;
    const senders = users.map(async (user, u) => {
      for (let i = 0; sending; i++) {
        const topic = `reload ${(u + i) % 4}`;
        commands.push({ id: await sendSurely(user, topic, "!echo"), topic });
        await pause(40 + Math.random() * 60);
      }
    });
    const replies = () => botReplies(sandbox!).length;
    const count = (pattern: RegExp) =>
      stdout.text.split("\n").filter((l) => pattern.test(l)).length;
    const reloaded = /"msg":"configuration reloaded"/;
    const failed = /"msg":"reload failed: /;

    let failures = 0;
    try {
      for (let r = 1; r <= RELOADS; r++) {
        // Some answers between reloads, so each reload lands among messages being handled.
        const floor = replies();
        await waitUntil(
          () => replies() >= floor + 3,
          60_000,
          () => `${replies()} replies`,
        );
        if (r % 4 === 2) {
          // A config that does not load: the running plugins go on, the error names key and file.
          await writeFile(config, good.replace("rateLimit: false", "rateLimit: sometimes"));
          child.kill("SIGHUP");
          await waitUntil(
            () => count(failed) > failures,
            60_000,
            () => stdout.text.slice(-2000),
          );
          failures++;
          await writeFile(config, good);
          continue;
        }
        await writeFile(join(dir, "echo.mjs"), echoPlugin(r));
        await writeFile(
          config,
          good.replace("level: info", r % 2 === 0 ? "level: info" : "level: debug"),
        );
        const before = count(reloaded);
        child.kill("SIGHUP");
        await waitUntil(
          () => count(reloaded) > before,
          60_000,
          () => stdout.text.slice(-2000),
        );
      }
      sending = false;
      await Promise.all(senders);
      await waitUntil(
        () => replies() >= commands.length,
        60_000,
        () => `${replies()} of ${commands.length} commands answered`,
      );
      await pause(500);
    } finally {
      sending = false;
      await Promise.allSettled(senders);
      await Promise.all(users.map((c) => c.close()));
    }
    const failure = stdout.text.split("\n").find((l) => failed.test(l)) ?? "";
    expect(failure).toContain("rateLimit");
    expect(failure).toContain("bot.config.yaml");
    const counts = new Map<number, number>();
    for (const r of botReplies(sandbox)) counts.set(r.answers, (counts.get(r.answers) ?? 0) + 1);
    console.log(
      `reload chaos: ${JSON.stringify({
        reloads: count(reloaded),
        refused: failures,
        commands: commands.length,
        lost: commands.filter((c) => !counts.has(c.id)).length,
        twice: [...counts.values()].filter((n) => n > 1).length,
      })}`,
    );
    expect(count(reloaded)).toBe(RELOADS - failures);
    expectEachAnsweredOnceInOrder(sandbox, commands);

    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code, stderr.text).toBe(0);
  }, 240_000);
});
