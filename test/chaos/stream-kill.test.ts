// A streamed answer from a real `bot start` process killed with SIGKILL mid-stream is finished on restart, in the same message.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { bin, cleanEnv, watch } from "../helpers/process.js";
import { fileStoreConfig, waitUntil } from "./helpers.js";

/**
 * `!story` streams twelve words, one every 200 ms. The first word names the process, so the run
 * after the kill starts with other words than the one killed. A plain object: the temp dir
 * cannot import topicbot.
 */
const STORY_PLUGIN = `const WORDS = "upon a time there was a bot that was killed and came back".split(" ");
export default {
  name: "story",
  setup(bot) {
    bot.command("story", { description: "Tells a story slowly" }, async (ctx) => {
      async function* words() {
        yield "Run" + process.pid + ":";
        for (const word of WORDS) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          yield " " + word;
        }
        yield " THE END";
      }
      await ctx.stream(words(), { minEditIntervalMs: 100 });
    });
  },
};
`;

describe("chaos: SIGKILL in the middle of a streamed answer", () => {
  let sandbox: Sandbox | undefined;
  let dir: string | undefined;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
    await sandbox?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("the restarted bot finishes the same message; no second answer is posted", async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 1 });
    dir = await mkdtemp(join(tmpdir(), "topicbot-stream-kill-"));
    await writeFile(join(dir, "story.mjs"), STORY_PLUGIN);
    await writeFile(join(dir, "bot.config.yaml"), fileStoreConfig(sandbox, "story.mjs"));
    const spawnBot = () => {
      const child = spawn(process.execPath, [bin, "start", "--config", "bot.config.yaml"], {
        cwd: dir,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      return { child, stdout: watch(child.stdout!), stderr: watch(child.stderr!) };
    };
    const botMessages = () =>
      sandbox!.realm.messages.filter((m) => m.senderId === sandbox!.bot.userId);
    const describe = () =>
      JSON.stringify(botMessages().map((m) => ({ id: m.id, content: m.content })));

    const first = spawnBot();
    await first.stdout.waitFor(/"msg":"ready"/, 30_000);
    const mia = sandbox.user("mia");
    const client = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
    try {
      await client.messages.send({
        type: "channel",
        to: "general",
        topic: "tale",
        content: "!story",
      });
    } finally {
      await client.close();
    }
    // Killed once the answer is posted and has been edited a few words in.
    await waitUntil(
      () => /^Run\d+: upon a time/.test(botMessages()[0]?.content ?? ""),
      20_000,
      describe,
    );
    first.child.kill("SIGKILL");
    await once(first.child, "exit");
    const killedAt = botMessages()[0]!;
    expect(killedAt.content, "killed mid-stream").not.toMatch(/THE END/);
    const firstPid = /^Run(\d+):/.exec(killedAt.content)![1];

    const second = spawnBot();
    await waitUntil(
      () => /THE END$/.test(botMessages()[0]?.content ?? ""),
      30_000,
      () => `${describe()}\n${second.stdout.text.slice(-3000)}\n${second.stderr.text}`,
    );
    second.child.kill("SIGTERM");
    const [code] = (await once(second.child, "exit")) as [number | null];
    expect(code, second.stderr.text).toBe(0);

    const messages = botMessages();
    expect(messages, describe()).toHaveLength(1);
    expect(messages[0]!.id).toBe(killedAt.id);
    // The rerun wrote its own words into the message the killed run posted.
    expect(messages[0]!.content).toMatch(
      /^Run\d+: upon a time there was a bot that was killed and came back THE END$/,
    );
    expect(messages[0]!.content).not.toContain(`Run${firstPid}:`);
  }, 60_000);
});
