import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { main } from "../../src/cli/main.js";
import { createFileStore } from "topicbot";
import { Follows } from "../../src/context/follows.js";
import { Quarantine } from "../../src/state/quarantine.js";
import { createStore } from "../../src/state/key-value/create.js";
import { startRedis } from "../helpers/redis.js";

const bin = fileURLToPath(new URL("../../bin/bot.js", import.meta.url));
const greeter = fileURLToPath(new URL("../fixtures/config/plugins/greeter", import.meta.url));

let sandbox: Sandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({ heartbeatSeconds: 10 });
  dir = await mkdtemp(join(tmpdir(), "topicbot-check-"));
});
afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

async function configFile(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

const serverSection = (apiKey: string) =>
  `server:\n  site: ${sandbox.url}\n  email: ${sandbox.bot.email}\n  apiKey: ${apiKey}\n`;

async function check(file: string) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(["check", "-c", file], {
    stdout: (l) => stdout.push(l),
    stderr: (l) => stderr.push(l),
  });
  return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
}

describe("bot check", () => {
  it("connects and prints who the bot is and what it listens to, never the API key", async () => {
    const key = sandbox.bot.apiKey;
    const file = await configFile(
      "good.yaml",
      `${serverSection(key)}prefix: "?"\nchannels: [general, sandbox]\nallPublicChannels: true\n` +
        `storage: { type: file, path: data/bot.json }\n` +
        `plugins:\n  - ping\n  - ${greeter}:\n      greeting: Hi\n`,
    );
    const { code, stdout, stderr } = await check(file);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain(`Config      ${file}: valid (2 plugin(s), settings valid)`);
    expect(stdout).toContain(`Server      ${sandbox.url} (from ${file})`);
    expect(stdout).toContain(
      "Bot         Topic Bot <bot-bot@sandbox.test>, user 6, member, a bot account",
    );
    expect(stdout).toContain("Version     11.0-topicbot-sandbox, feature level 427");
    expect(stdout).toContain("API key     [redacted] (32 characters)");
    expect(stdout).toContain("Channels    general, sandbox (subscribed on start)");
    expect(stdout).toContain("all public channels: yes");
    expect(stdout).toContain("direct messages: yes");
    expect(stdout).toContain('messages starting with "?"');
    expect(stdout).toContain("Storage     file data/bot.json");
    expect(stdout).toMatch(/Actions {5}all \d+ available at feature level 427/);
    expect(stdout).toContain("Plugins     ping: ?ping");
    expect(stdout).toContain("greeter: ?greet");
    expect(stdout).toMatch(/All good\.$/);
    expect(stdout).not.toContain(key);
  });

  it("lists the conversations plugins follow, read from the bot's storage", async () => {
    const key = sandbox.bot.apiKey;
    const file = await configFile(
      "follows.yaml",
      `${serverSection(key)}storage: { type: file, path: follows/bot.json }\nplugins: [ping]\n`,
    );
    expect((await check(file)).stdout).toContain("Follows     none");
    const store = await createFileStore({ path: join(dir, "follows", "bot.json") });
    const follows = new Follows(store.namespace("topicbot:follows"));
    const general = sandbox.realm.channelByName("general")!.streamId;
    const mia = sandbox.user("mia").userId;
    await follows.follow(`channel:${general}:design`, "assistant", { idleMinutes: 30 });
    await follows.follow(`direct:${mia},${sandbox.bot.userId}`, "assistant", { idleMinutes: 5 });
    await store.close();

    const { code, stdout, stderr } = await check(file);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain(
      "Follows     #general > design: assistant (ends after 30 min without a message; last message 0 min ago)",
    );
    expect(stdout).toContain(
      "            DM with Mia Member, Topic Bot: assistant (ends after 5 min without a message; last message 0 min ago)",
    );
  });

  it("lists the quarantined messages (dead letters), read from the bot's storage", async () => {
    const file = await configFile(
      "dead.yaml",
      `${serverSection(sandbox.bot.apiKey)}storage: { type: file, path: dead/bot.json }\nplugins: [ping]\n`,
    );
    expect((await check(file)).stdout).toContain("Quarantine  none");
    const store = await createFileStore({ path: join(dir, "dead", "bot.json") });
    const quarantine = new Quarantine({
      store: store.namespace("topicbot:runtime"),
      maxFailures: 1,
      now: () => 0,
    });
    await quarantine.failed(41, "hang", "command hang", "ran past half its time limit of 2 s");
    await store.close();
    const { code, stdout } = await check(file);
    expect(code).toBe(0);
    expect(stdout).toContain(
      "Quarantine  message 41: plugin hang, command hang, failed 1 times (last: ran past half its time limit of 2 s); quarantined 1970-01-01T00:00:00.000Z, not run again",
    );
  });

  it("in cluster mode, reads follows from the cluster's Redis, where the bot keeps them", async () => {
    const redis = await startRedis();
    try {
      const file = await configFile(
        "cluster.yaml",
        `${serverSection(sandbox.bot.apiKey)}cluster: { redis: "${redis.url}" }\nplugins: [ping]\n`,
      );
      // Written where `bot start` in cluster mode keeps storage (memory becomes the cluster's Redis).
      const store = await createStore({ type: "redis", url: redis.url }, { baseDir: dir });
      const general = sandbox.realm.channelByName("general")!.streamId;
      await new Follows(store.namespace("topicbot:follows")).follow(
        `channel:${general}:ops`,
        "assistant",
        { idleMinutes: 30 },
      );
      await store.close();
      const { code, stdout, stderr } = await check(file);
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toContain("Storage     redis (the cluster's, cluster.redis)");
      expect(stdout).toContain("Follows     #general > ops: assistant");
      expect(stdout).not.toContain(redis.url);
    } finally {
      await redis.close();
    }
  });

  it("reports refused credentials with exit code 1, without printing the key", async () => {
    const wrong = "WRONGkeyWRONGkeyWRONGkeyWRONGkey";
    const { code, stdout, stderr } = await check(
      await configFile("bad-key.yaml", serverSection(wrong)),
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /refused the credentials \((INVALID_API_KEY|UNAUTHORIZED)\); check server\.email and server\.apiKey/,
    );
    expect(`${stdout}\n${stderr}`).not.toContain(wrong);
  });

  it("names the file and key of a config error, exit code 2", async () => {
    const file = await configFile("bad.yaml", `${serverSection("k")}timeZone: Moon/Base\n`);
    const { code, stderr } = await check(file);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `error: ${file}:5:11: timeZone: unknown time zone "Moon/Base" (expected an IANA name such as Europe/Paris or UTC)`,
    );
  });

  it("names the file, plugin and key of bad plugin settings, exit code 2", async () => {
    const file = await configFile(
      "bad-plugin.yaml",
      `${serverSection("k")}plugins:\n  - ${greeter}:\n      repeat: 0\n`,
    );
    const { code, stderr } = await check(file);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `error: ${file}:7:15: plugins[0][${JSON.stringify(greeter)}].repeat: plugin "greeter": `,
    );
  });

  it("reports every config problem at once, in file order, with line, column and did-you-mean", async () => {
    const file = await configFile(
      "many.yaml",
      `${serverSection("k")}prefx: "?"\nstorage: { type: fiel }\nplugins:\n  - pingg\n  - ${greeter}:\n      greting: Hi\n`,
    );
    const { code, stderr } = await check(file);
    expect(code).toBe(2);
    const lines = stderr.split("\n");
    expect(lines[0]).toBe(`error: ${file}:5:1: prefx: unknown key (did you mean "prefix"?)`);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${file}:6:18: storage\\.type: .*'memory' \\| 'file' \\| 'redis' \\(got "fiel"\\)`,
      ),
    );
    expect(lines).toHaveLength(2);

    // Plugins are checked once the config itself is valid: names and settings, all at once.
    const plugins = await configFile(
      "plugins.yaml",
      `${serverSection("k")}plugins:\n  - pingg\n  - ${greeter}:\n      greting: Hi\n`,
    );
    const second = await check(plugins);
    expect(second.code).toBe(2);
    const [missing, unknown] = second.stderr.split("\n");
    expect(missing).toMatch(
      new RegExp(
        `^error: ${plugins}:6:5: plugins\\[0\\]: plugin "pingg" not found: .*\\(did you mean "ping"\\?\\).*built-ins: .*ping`,
      ),
    );
    expect(unknown).toBe(
      `${plugins}:8:7: plugins[1][${JSON.stringify(greeter)}].greting: plugin "greeter": unknown key (did you mean "greeting"?)`,
    );
  });

  it("points a YAML syntax error at the bracket left open", async () => {
    const file = await configFile(
      "syntax.yaml",
      `prefix: "!"\nplugins: [ping\nchannels: general\n`,
    );
    const { code, stderr } = await check(file);
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`^error: ${file}:2:10: invalid YAML: .*end with a \\]`));
  });

  it("reports a plugin's setup failure as that, not as a connection problem", async () => {
    await writeFile(
      join(dir, "broken.mjs"),
      'export default { name: "broken", description: "Fails.", setup() { throw new Error("no token configured"); } };\n',
    );
    const file = await configFile(
      "broken.yaml",
      `${serverSection(sandbox.bot.apiKey)}plugins:\n  - ./broken.mjs\n`,
    );
    const { code, stderr } = await check(file);
    expect(code).toBe(1);
    expect(stderr).toBe('error: plugin "broken" failed in setup: no token configured');
  });

  it("works as a real process too", async () => {
    const key = sandbox.bot.apiKey;
    const file = await configFile(
      "spawned.yaml",
      `${serverSection("${BOT_KEY}")}plugins: [ping]\n`,
    );
    const child = spawn(process.execPath, [bin, "check", "-c", file], {
      env: { ...process.env, BOT_KEY: key, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const [code] = (await once(child, "exit")) as [number | null];
    clearTimeout(timer);
    expect(output).toContain("API key     [redacted] (32 characters)");
    expect(output).not.toContain(key.slice(0, 4));
    expect(output).toContain("Plugins     ping: !ping");
    expect(output).not.toContain(key);
    expect(code).toBe(0);
  });
});
