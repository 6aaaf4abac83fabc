import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import { definePlugin } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { main } from "../../src/cli/main.js";
import { captureLog } from "../helpers/log.js";
import { gate, post, until } from "../helpers/reliability.js";

describe("lifecycle: fatal errors end the loop with a clear message; stop() drains and deletes the queue", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const cases: [string, (s: Sandbox) => void, RegExp][] = [
    [
      "the bot user is deactivated",
      (s) => void (s.realm.users.get(s.bot.userId)!.isActive = false),
      /the bot's account was deactivated \(USER_DEACTIVATED\)/,
    ],
    [
      "the organization is deactivated",
      (s) => void (s.realm.deactivated = true),
      /the organization at http:\/\/127\.0\.0\.1:\d+ was deactivated \(REALM_DEACTIVATED\)/,
    ],
    [
      "the API key is revoked",
      (s) => void (s.realm.users.get(s.bot.userId)!.apiKey = "revoked"),
      /refused the bot's credentials \(INVALID_API_KEY\); check server\.email and server\.apiKey/,
    ],
  ];
  it.each(cases)(
    "stops when %s: bot.done rejects with what to check",
    async (_name, fault, message) => {
      const log = captureLog();
      t = await createTestBot({ sandbox: { heartbeatSeconds: 0.1 }, logger: log.logger });
      fault(t.sandbox);
      await expect(t.bot.done).rejects.toThrow(message);
      expect(log.lines().some((l) => l.level === 50 && message.test(String(l.msg)))).toBe(true);
      // Stopped for good: no further polls.
      expect(log.lines().filter((l) => l.msg === "polling failed; retrying")).toEqual([]);
    },
  );

  it("bot start exits non-zero with the reason when the organization is deactivated under it", async () => {
    const sandbox = await startSandbox({ heartbeatSeconds: 0.1 });
    const dir = await mkdtemp(join(tmpdir(), "topicbot-fatal-"));
    try {
      const file = join(dir, "bot.config.yaml");
      await writeFile(
        file,
        `server:\n  site: ${sandbox.url}\n  email: ${sandbox.bot.email}\n  apiKey: ${sandbox.bot.apiKey}\n` +
          "logging:\n  level: silent\nconcurrency: 2\n",
      );
      const stderr: string[] = [];
      const exit = main(["start", "-c", file], {
        stdout: () => undefined,
        stderr: (l) => stderr.push(l),
      });
      await until(
        () => sandbox.realm.queues.forUser(sandbox.bot.userId).length === 1,
        "the bot to poll",
      );
      sandbox.realm.deactivated = true;
      expect(await exit).toBe(1);
      expect(stderr.join("\n")).toMatch(
        /^error: the organization at .* was deactivated \(REALM_DEACTIVATED\)$/m,
      );
    } finally {
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("stop() stops polling, lets the running handler finish, then deletes the queue", async () => {
    const release = gate();
    let finished = false;
    const slow = definePlugin({
      name: "slow",
      setup(bot) {
        bot.hear(/^work$/, async (ctx) => {
          await release.opened;
          await ctx.reply("finished");
          finished = true;
        });
      },
    });
    t = await createTestBot({
      plugins: [slow],
      config: { respondTo: "all", stopTimeoutMs: 5_000 },
      sandbox: { heartbeatSeconds: 0.2 },
    });
    const { sandbox, bot } = t;
    post(sandbox, "work");
    await until(() => bot.pending === 1, "the handler to start");
    const stopped = bot.stop();
    let settled = false;
    void stopped.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    expect(sandbox.realm.queues.forUser(sandbox.bot.userId)).toHaveLength(1);
    release.open();
    await stopped;
    expect(finished).toBe(true);
    expect(t.botMessages().map((m) => m.content)).toEqual(["finished"]);
    expect(sandbox.realm.queues.forUser(sandbox.bot.userId)).toEqual([]);
    await expect(bot.done).resolves.toBeUndefined();
  });

  it("stop() gives up on a handler that outlives stopTimeoutMs, and still deletes the queue", async () => {
    const never = gate();
    const stuck = definePlugin({
      name: "stuck",
      setup(bot) {
        bot.hear(/^hang$/, () => never.opened);
      },
    });
    const log = captureLog();
    t = await createTestBot({
      plugins: [stuck],
      config: { respondTo: "all", stopTimeoutMs: 50 },
      sandbox: { heartbeatSeconds: 0.2 },
      logger: log.logger,
    });
    const { sandbox, bot } = t;
    post(sandbox, "hang");
    await until(() => bot.pending === 1, "the handler to start");
    await bot.stop();
    expect(sandbox.realm.queues.forUser(sandbox.bot.userId)).toEqual([]);
    expect(
      log.lines().find((l) => String(l.msg).startsWith("handlers still running")),
    ).toMatchObject({ running: 1, stopTimeoutMs: 50 });
    never.open();
  });
});
