import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "topicbot/client";
import { bin, cleanEnv, watch } from "../helpers/process.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

describe("npx bot start on the shipped bot.config.yaml", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
  });

  it("runs against the embedded sandbox, answers !ping, and stops cleanly on SIGTERM", async () => {
    child = spawn(process.execPath, [bin, "start"], {
      cwd: root,
      env: { ...cleanEnv(), LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);

    await stdout.waitFor(/"msg":"ready"/, 30_000);
    const [, url] = await stderr.waitFor(/embedded sandbox at (http:\/\/127\.0\.0\.1:\d+)/, 5_000);
    const [, email, apiKey] = await stderr.waitFor(/email (\S+)\s+API key (\w+)/, 5_000);

    const human = createClient({ site: url!, email: email!, apiKey: apiKey! });
    try {
      const { queue_id } = await human.events.register({ event_types: ["message"] });
      await human.messages.send({
        type: "channel",
        to: "general",
        topic: "cli test",
        content: "!ping",
      });
      let lastEventId = -1;
      let answer: Record<string, unknown> | undefined;
      for (let polls = 0; polls < 10 && !answer; polls++) {
        const { events } = await human.events.get(
          { queue_id: queue_id!, last_event_id: lastEventId },
          { timeoutMs: 5_000 },
        );
        for (const event of events) {
          lastEventId = Math.max(lastEventId, event.id);
          const message = event.message as Record<string, unknown> | undefined;
          if (message && message.sender_email !== email) answer = message;
        }
      }
      expect(answer).toMatchObject({
        content: "pong",
        subject: "cli test",
        display_recipient: "general",
      });
    } finally {
      await human.close();
    }

    const queueId = /"queueId":"([^"]+)","featureLevel"/.exec(stdout.text)?.[1];
    expect(queueId).toBeDefined();
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    expect(stdout.text).toContain(`"queueId":"${queueId}","msg":"event queue deleted"`);
    expect(stdout.text).not.toContain(apiKey!);
  }, 60_000);

  it("prints curl lines that, run as printed, send !ping and read back the bot's pong", async () => {
    child = spawn(process.execPath, [bin, "start"], {
      cwd: root,
      env: { ...cleanEnv(), LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    await stdout.waitFor(/"msg":"ready"/, 30_000);
    await stderr.waitFor(/newest message of that topic:\n(?:.*\n){3}/, 5_000);
    // The banner's commands: each `curl` line with the continuation lines under it.
    const commands = stderr.text.split("\n").reduce<string[]>((all, line) => {
      if (line.trimStart().startsWith("curl ")) all.push(line.trim());
      else if (all.length > 0 && all.at(-1)!.endsWith("\\")) all[all.length - 1] += `\n${line}`;
      return all;
    }, []);
    expect(commands).toHaveLength(2);
    const shell = (command: string) => run("bash", ["-c", command], { timeout: 10_000 });
    await shell(commands[0]!);
    let answer: { sender_email?: string; content?: string } | undefined;
    for (let attempt = 0; attempt < 50 && answer?.content !== "pong"; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 100));
      const { stdout: body } = await shell(commands[1]!);
      answer = (JSON.parse(body) as { messages: (typeof answer)[] }).messages.at(-1);
    }
    expect(answer?.content).toBe("pong");
    child.kill("SIGTERM");
    await once(child, "exit");
  }, 60_000);

  it("wires the config's storage, channels and allPublicChannels into the running bot", async () => {
    const dir = await mkdtemp(join(tmpdir(), "topicbot-start-"));
    try {
      const config = join(dir, "bot.config.yaml");
      await writeFile(
        config,
        [
          "channels: [general, standups]",
          "allPublicChannels: true",
          "storage: { type: file, path: data/store.json }",
          "logging: { level: info, format: json }",
          "plugins: [ping]",
          "",
        ].join("\n"),
      );
      child = spawn(process.execPath, [bin, "start", "-c", config], {
        cwd: dir,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      });
      const stdout = watch(child.stdout!);
      watch(child.stderr!);
      const [ready] = await stdout.waitFor(/\{[^\n]*"msg":"ready"\}/, 30_000);
      expect(JSON.parse(ready!)).toMatchObject({
        channels: ["general", "standups"],
        allPublicChannels: true,
        storage: "file",
        plugins: ["ping"],
      });
      // The bot joined the channel it was not in yet ("standups" is created on the way).
      expect(stdout.text).toMatch(
        /"subscribed":\["standups"\],"alreadySubscribed":\["general"\][^\n]*"msg":"channel subscriptions checked"/,
      );
      expect(await readdir(dir)).toContain("data");
      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("bot start when something is wrong", () => {
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("names server.site, the URL and what to check, and retries with a countdown", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-start-"));
    await writeFile(
      join(dir, "bot.config.yaml"),
      "server:\n  site: http://127.0.0.1:9\n  email: bot@example.com\n  apiKey: abcdefghijklmnop1234\nplugins: [ping]\n",
    );
    child = spawn(process.execPath, [bin, "start"], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    watch(child.stdout!);
    const stderr = watch(child.stderr!);
    await stderr.waitFor(/retrying in 4 s \(attempt 3/, 30_000);
    expect(stderr.text).toContain(
      "Cannot reach server.site http://127.0.0.1:9 (from bot.config.yaml)",
    );
    expect(stderr.text).toMatch(/Check that the URL is right/);
    expect(stderr.text).toContain("retrying in 2 s (attempt 2");
    expect(stderr.text).not.toContain("abcdefghijklmnop1234");
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(1);
  }, 60_000);

  it("stops with exit code 1 on SIGTERM while an attempt to reach the server hangs", async () => {
    // A loopback host that accepts connections and never answers: the first attempt hangs.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    silent.listen(0, "127.0.0.1");
    await once(silent, "listening");
    const { port } = silent.address() as AddressInfo;
    try {
      dir = await mkdtemp(join(tmpdir(), "topicbot-start-"));
      await writeFile(
        join(dir, "bot.config.yaml"),
        `server:\n  site: http://127.0.0.1:${port}\n  email: bot@example.com\n  apiKey: abcdefghijklmnop1234\nplugins: [ping]\n`,
      );
      const connected = once(silent, "connection");
      child = spawn(process.execPath, [bin, "start"], {
        cwd: dir,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      });
      watch(child.stdout!);
      watch(child.stderr!);
      await connected;
      child.kill("SIGTERM");
      const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
      expect({ code, signal }).toEqual({ code: 1, signal: null });
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 60_000);

  it("prints a plugin's setup error, and no sandbox banner above it", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-start-"));
    await writeFile(
      join(dir, "broken.mjs"),
      'export default { name: "broken", description: "Fails.", setup() { throw new Error("no token configured"); } };\n',
    );
    await writeFile(join(dir, "bot.config.yaml"), "plugins:\n  - ./broken.mjs\n");
    child = spawn(process.execPath, [bin, "start"], {
      cwd: dir,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    watch(child.stdout!);
    const stderr = watch(child.stderr!);
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(1);
    expect(stderr.text).toContain('plugin "broken" failed in setup: no token configured');
    expect(stderr.text).not.toContain("embedded sandbox at");
  }, 60_000);
});
