// A saved delivery state that is ahead of the server (a reset or another server) is said, not silently obeyed.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createBot, definePlugin, type Bot } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { FileDeliveryStore } from "../../src/state/delivery/file.js";
import { captureLog } from "../helpers/log.js";
import { post, until } from "../helpers/reliability.js";

const echo = definePlugin({
  name: "echo",
  setup(bot) {
    bot.hear(/^echo (.+)$/, (ctx) => ctx.reply(ctx.match[1]!));
  },
});

let dir: string | undefined;
let sandbox: Sandbox | undefined;
let bot: Bot | undefined;
afterEach(async () => {
  await bot?.stop();
  await sandbox?.close();
  bot = sandbox = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function startBot(s: Sandbox, journal: string, log: ReturnType<typeof captureLog>) {
  const b = createBot({
    server: { site: s.url, email: s.bot.email, apiKey: s.bot.apiKey },
    plugins: [echo],
    respondTo: "all",
    rateLimit: false,
    handleSignals: false,
    logger: log.logger,
    delivery: await FileDeliveryStore.open({ path: journal }),
  });
  await b.start();
  return b;
}

describe("a delivery journal ahead of the server", () => {
  it("warns at start, naming the watermark, the server's newest message and what to delete", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-reset-"));
    const journal = join(dir, "bot.json.delivery.jsonl");
    sandbox = await startSandbox();
    const first = captureLog();
    bot = await startBot(sandbox, journal, first);
    const s = sandbox;
    const replies = () => s.realm.messages.filter((m) => m.senderId === s.bot.userId);
    for (const word of ["one", "two", "three", "four", "five"]) post(s, `echo ${word}`);
    await until(() => replies().length === 5, "five replies", 10_000);
    await bot.stop();
    await sandbox.close();
    bot = undefined;
    const ahead = (l: Record<string, unknown>) =>
      String(l.msg).startsWith("the saved delivery state says message");
    expect(first.lines().filter(ahead), "no warning against the same server").toEqual([]);

    // A new sandbox numbers its messages from 1 again: the journal's watermark is past its newest.
    sandbox = await startSandbox();
    const second = captureLog();
    bot = await startBot(sandbox, journal, second);
    await until(() => second.lines().some(ahead), "the warning at start", 5_000);
    const warning = second.lines().find(ahead);
    const newest = sandbox.realm.messages.at(-1)?.id ?? 0;
    expect(warning).toMatchObject({ level: 40, newestOnServer: newest });
    expect(Number(warning!.lastHandledId)).toBeGreaterThan(newest);
    expect(String(warning!.msg)).toContain(".delivery.jsonl");
  }, 60_000);
});
