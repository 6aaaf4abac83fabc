// `bot start` twice on the embedded sandbox with `storage: file` (the `bot init` config): the second run answers too.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "topicbot/client";
import { bin, cleanEnv, watch } from "../helpers/process.js";

describe("bot start again on a fresh embedded sandbox, with file storage", () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-restart-"));
    await writeFile(
      join(dir, "bot.config.yaml"),
      "channels: [general]\nstorage: { type: file, path: data/bot.json }\nplugins: [ping]\n",
    );
  });
  afterEach(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** One `bot start`: sends `!ping` as the printed human, returns what the bot answered, stops it. */
  async function startAndPing(): Promise<string | undefined> {
    child = spawn(process.execPath, [bin, "start"], {
      cwd: dir,
      env: { ...cleanEnv(), NODE_OPTIONS: "", LOG_LEVEL: "debug" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    await stdout.waitFor(/"msg":"ready"/, 30_000);
    const [, url] = await stderr.waitFor(/embedded sandbox at (http:\/\/127\.0\.0\.1:\d+)/, 5_000);
    const [, email, apiKey] = await stderr.waitFor(/email (\S+)\s+API key (\w+)/, 5_000);
    const human = createClient({ site: url!, email: email!, apiKey: apiKey! });
    let answer: string | undefined;
    try {
      const { queue_id } = await human.events.register({ event_types: ["message"] });
      await human.messages.send({ type: "channel", to: "general", topic: "t", content: "!ping" });
      let lastEventId = -1;
      // Bounded: the answer comes within a poll or two; a skipped message never does.
      for (let polls = 0; polls < 3 && answer === undefined; polls++) {
        const { events } = await human.events
          .get({ queue_id: queue_id!, last_event_id: lastEventId }, { timeoutMs: 5_000 })
          .catch(() => ({ events: [] })); // a long poll that ended with nothing
        for (const event of events) {
          lastEventId = Math.max(lastEventId, event.id);
          const message = event.message as { sender_email?: string; content?: string } | undefined;
          if (message && message.sender_email !== email) answer = message.content;
        }
      }
    } finally {
      await human.close();
    }
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(stdout.text).not.toContain("skipping a message handled already");
    return answer;
  }

  it("answers !ping on each run", async () => {
    expect(await startAndPing()).toBe("pong");
    // The second sandbox numbers its messages from 1 again.
    expect(await startAndPing()).toBe("pong");
  }, 90_000);
});
