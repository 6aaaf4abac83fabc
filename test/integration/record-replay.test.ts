// `bot start` with `record:` against a sandbox with faults, then the cassette in lockdown, redrive and `bot replay --diff`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import {
  createTestBot,
  diffReport,
  readCassette,
  replayDiff,
  type Cassette,
} from "topicbot/testing";
import { recordedBot } from "../../src/record/seed.js";
import { cleanEnv, watch } from "../helpers/process.js";
import { main } from "../../src/cli/main.js";

const mainModule = pathToFileURL(
  fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url)),
).href;

/** The plugin, as a file `bot start` loads and a module the harness imports. */
const PLUGIN = `export default {
  name: "pinger",
  setup(bot) {
    bot.command("ping", { description: "Check that the bot answers" }, (ctx) => ctx.reply("pong " + ctx.sender.fullName));
  },
};
`;

let dir: string;
let sandbox: Sandbox;
let cassettePath: string;
let cassetteText: string;
let cassette: Cassette;
let plugin: { name: string; setup(bot: unknown): void };

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "topicbot-record-"));
  sandbox = await startSandbox({ heartbeatSeconds: 2 });
  await writeFile(join(dir, "pinger.mjs"), PLUGIN);
  plugin = (await import(pathToFileURL(join(dir, "pinger.mjs")).href)).default;
  cassettePath = join(dir, "cassettes", "incident.jsonl");
  await writeFile(
    join(dir, "bot.config.yaml"),
    [
      "server:",
      `  site: ${sandbox.url}`,
      `  email: ${sandbox.bot.email}`,
      `  apiKey: ${sandbox.bot.apiKey}`,
      "plugins: [./pinger.mjs]",
      "logging: { level: info, format: json }",
      "record:",
      "  path: cassettes/incident.jsonl",
      "",
    ].join("\n"),
  );
  await writeFile(
    join(dir, "run.mjs"),
    `const { main } = await import(${JSON.stringify(mainModule)});\nprocess.exit(await main(["start", "-c", ${JSON.stringify(join(dir, "bot.config.yaml"))}]));\n`,
  );
  const replies: string[] = [];
  const stop = sandbox.realm.onMessage((m) => {
    if (m.senderId === sandbox.bot.userId) replies.push(m.content);
  });
  // From the checkout (where tsx is installed), with the config of the temporary folder.
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", join(dir, "run.mjs")], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stdout = watch(child.stdout!);
  const stderr = watch(child.stderr!);
  try {
    await stdout.waitFor(/"msg":"ready"/, 60_000);
    const mia = sandbox.user("mia");
    const human = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
    const say = (content: string) =>
      human.messages.send({ type: "channel", to: "general", topic: "incident", content });
    await say("!ping");
    await until("the first pong", () => replies.length === 1, 30_000);
    // A 429 on the reply, and the poll after it dropped.
    const limited = sandbox.faults.add({
      route: "POST /messages",
      status: 429,
      code: "RATE_LIMIT_HIT",
      extra: { "retry-after": 1 },
      user: sandbox.bot.email,
      times: 1,
    });
    const dropped = sandbox.faults.add({ route: "GET /events", drop: true, times: 1 });
    await say("!ping");
    await until("the second pong", () => replies.length === 2, 30_000);
    await until(
      "the dropped poll",
      () => sandbox.faults.hits.get(dropped) === 1 && sandbox.faults.hits.get(limited) === 1,
      30_000,
    );
    // The queue expires: the bot registers again, and answers what came meanwhile.
    sandbox.expireQueues({ userId: sandbox.bot.userId });
    await say("!ping");
    await until("the third pong", () => replies.length === 3, 45_000);
    await human.close();
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(
      `${(error as Error).message}\nstderr:\n${stderr.text}\nstdout:\n${stdout.text}`,
    );
  } finally {
    stop();
  }
  cassetteText = await readFile(cassettePath, "utf8");
  if (process.env.RECORD_DEBUG) await writeFile(process.env.RECORD_DEBUG, cassetteText);
  cassette = readCassette(cassettePath);
}, 180_000);

afterAll(async () => {
  await sandbox?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a cassette recorded by bot start", () => {
  it("holds the registrations, the faults, every event batch and the server's level", () => {
    const endpoints = cassette.exchanges.map((x) => `${x.method} ${x.path} ${x.status ?? "none"}`);
    expect(endpoints.filter((e) => e === "POST /register 200")).toHaveLength(2);
    expect(endpoints).toContain("POST /messages 429");
    expect(endpoints).toContain("GET /events none");
    expect(
      cassette.exchanges.some((x) => x.path === "/events" && x.body?.code === "BAD_EVENT_QUEUE_ID"),
    ).toBe(true);
    expect(cassette.server?.featureLevel).toBeTypeOf("number");
    // Each request once, numbered in the order sent (the file is in the order answered).
    const seqs = cassette.exchanges.map((x) => x.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    const limited = cassette.exchanges.find((x) => x.status === 429)!;
    expect(limited.headers?.["retry-after"]).toBe("1");
    expect(cassette.exchanges.every((x) => typeof x.at === "number" && x.ms >= 0)).toBe(true);
    const pongs = cassette.exchanges.filter(
      (x) => x.method === "POST" && x.path === "/messages" && x.status === 200,
    );
    expect(pongs).toHaveLength(3);
  });

  it("holds no API key and no email in clear, names replaced consistently", () => {
    for (const account of sandbox.users) {
      expect(cassetteText).not.toContain(account.apiKey);
      expect(cassetteText.toLowerCase()).not.toContain(account.email.toLowerCase());
      expect(cassetteText).not.toContain(account.fullName);
    }
    expect(cassetteText).not.toMatch(/@sandbox\.test/);
    expect(cassetteText).not.toContain(sandbox.url.replace("http://", ""));
    // Mia's alias is the same wherever she appears: in her messages and in the replies that name her.
    const pong = cassette.exchanges.find((x) => x.method === "POST" && x.path === "/messages")!;
    const name = /^pong (User \d+)$/.exec(pong.fields.content!)?.[1];
    expect(name).toBeDefined();
    expect(cassetteText).toContain(`"sender_full_name":"${name}"`);
  });

  it("replays in lockdown: answers and events as recorded, nothing missing", async () => {
    const t = await createTestBot({ plugins: [plugin as never], cassette: { from: cassettePath } });
    try {
      await t.cassette!.play({ timeoutMs: 60_000 });
      expect(t.cassette!.misses()).toEqual([]);
      expect(t.cassette!.requests().filter((r) => r.startsWith("POST /messages "))).toHaveLength(4);
      // Nothing reached the sandbox: the cassette answered.
      expect(t.realm.messages.filter((m) => m.senderId === t.sandbox.bot.userId)).toEqual([]);
    } finally {
      await t.close();
    }
  }, 120_000);

  it("fails a lockdown test that sends a new request, naming it", async () => {
    const changed = {
      name: "pinger",
      setup(bot: { command: (...args: unknown[]) => void }) {
        bot.command("ping", { description: "Check that the bot answers" }, async (ctx: never) => {
          const c = ctx as {
            react(e: string): Promise<void>;
            reply(t: string): Promise<void>;
            sender: { fullName: string };
          };
          await c.react("ok").catch(() => undefined);
          await c.reply(`pong ${c.sender.fullName}`);
        });
      },
    };
    const t = await createTestBot({
      plugins: [changed as never],
      cassette: { from: cassettePath },
    });
    await t.cassette!.play({ timeoutMs: 60_000 });
    expect(t.cassette!.misses()[0]).toMatch(/^POST \/messages\/\d+\/reactions emoji_name=ok/);
    await expect(t.close()).rejects.toThrow(
      /lockdown: the bot sent POST \/messages\/\d+\/reactions emoji_name=ok.*, which the cassette does not hold/,
    );
  }, 120_000);

  it("redrives on a live sandbox seeded from the cassette", async () => {
    const t = await createTestBot({
      plugins: [plugin as never],
      cassette: { from: cassettePath, mode: "redrive" },
    });
    try {
      expect(t.cassette!.seeded!.script).toHaveLength(3);
      await t.cassette!.play({ timeoutMs: 60_000 });
      const sender = t.cassette!.seeded!.script[0]!;
      const name = t.realm.userByEmail(sender.senderEmail)!.fullName;
      expect(t.botMessages().map((m) => m.content)).toEqual([
        `pong ${name}`,
        `pong ${name}`,
        `pong ${name}`,
      ]);
      expect(name).toMatch(/^User \d+$/);
    } finally {
      await t.close();
    }
  }, 120_000);
});

/** A proxy in front of a sandbox that renames `full_name` of GET /users/me and changes BAD_EVENT_QUEUE_ID's code. */
async function changingProxy(target: string): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url!, target);
      const out = request(
        url,
        { method: req.method, headers: { ...req.headers, "accept-encoding": "identity" } },
        (answer) => {
          const body: Buffer[] = [];
          answer.on("data", (c: Buffer) => body.push(c));
          answer.on("end", () => {
            let text = Buffer.concat(body).toString("utf8");
            if (url.pathname === "/api/v1/users/me" && req.method === "GET")
              text = text.replace('"full_name":', '"name":');
            text = text.replace('"code":"BAD_EVENT_QUEUE_ID"', '"code":"QUEUE_GONE"');
            const { "content-length": _, ...headers } = answer.headers;
            res.writeHead(answer.statusCode!, headers);
            res.end(text);
          });
        },
      );
      out.end(Buffer.concat(chunks));
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return server;
}

describe("bot replay --diff", () => {
  const fresh = () => {
    const bot = recordedBot(cassette);
    return startSandbox({
      heartbeatSeconds: 1,
      bot: bot && { fullName: bot.fullName, email: bot.email },
    });
  };

  it("finds no difference against the sandbox the cassette was recorded on", async () => {
    const target = await fresh();
    try {
      const diff = await replayDiff({ cassette, sandbox: target });
      const report = diffReport(diff, cassette, "incident.jsonl", "test");
      expect(diff.differences, report).toEqual([]);
      expect(report).toContain("None:");
      expect(diff.replayed).toBeGreaterThan(5);
      expect(diff.skipped.map((s) => s.why)).toEqual(
        expect.arrayContaining([
          "a rate-limit refusal",
          "recorded without an answer (network error)",
        ]),
      );
      expect(diff.events.recorded).toEqual(diff.events.replayed);
    } finally {
      await target.close();
    }
  }, 60_000);

  it("reports exactly a renamed field and a changed code", async () => {
    const target = await fresh();
    const proxy = await changingProxy(target.url);
    try {
      const site = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const diff = await replayDiff({ cassette, sandbox: target, site });
      const found = diff.differences.map(
        (d) =>
          `${d.request.split(" ").slice(0, 2).join(" ")} ${d.what} ${d.path ?? "-"} ${d.recorded} -> ${d.replayed}`,
      );
      expect(found).toEqual([
        "GET /users/me missing key full_name string -> —",
        "GET /users/me new key name — -> string",
        "GET /events code - BAD_EVENT_QUEUE_ID -> QUEUE_GONE",
      ]);
      const report = diffReport(diff, cassette, "incident.jsonl", "test");
      expect(report).toContain("| missing key | `full_name` | string | — |");
      expect(report).toContain("| code |  | BAD_EVENT_QUEUE_ID | QUEUE_GONE |");
    } finally {
      proxy.close();
      await target.close();
    }
  }, 60_000);
});

describe("the bot record and bot replay commands", () => {
  it("bot replay --diff prints the Markdown report and exits 0 when nothing differs", async () => {
    const lines: string[] = [];
    const errors: string[] = [];
    const code = await main(["replay", "--diff", cassettePath], {
      stdout: (l) => lines.push(l),
      stderr: (l) => errors.push(l),
    });
    expect({ code, errors }).toEqual({ code: 0, errors: [] });
    expect(lines.join("\n")).toMatch(/^# Replay of .*incident\.jsonl against the topicbot sandbox/);
    expect(lines.join("\n")).toContain("None: every replayed answer");
  }, 60_000);

  it("bot replay names a file that is not a cassette", async () => {
    const errors: string[] = [];
    const code = await main(["replay", "--diff", join(dir, "bot.config.yaml")], {
      stdout: () => undefined,
      stderr: (l) => errors.push(l),
    });
    expect(code).toBe(2);
    expect(errors.join("\n")).toContain("bot.config.yaml:1: not a JSON line");
  });

  it("bot record -o writes a cassette, content hashed with --hash-content", async () => {
    const config = join(dir, "plain.config.yaml");
    await writeFile(
      config,
      (await readFile(join(dir, "bot.config.yaml"), "utf8")).replace(/record:\n.*\n/, ""),
    );
    const out = join(dir, "by-cli.jsonl");
    await writeFile(
      join(dir, "run-record.mjs"),
      `const { main } = await import(${JSON.stringify(mainModule)});\nprocess.exit(await main(["record", "-c", ${JSON.stringify(config)}, "-o", ${JSON.stringify(out)}, "--hash-content"]));\n`,
    );
    const replies: number[] = [];
    const stop = sandbox.realm.onMessage((m) => {
      if (m.senderId === sandbox.bot.userId) replies.push(m.id);
    });
    const child = spawn(process.execPath, ["--import", "tsx", join(dir, "run-record.mjs")], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    try {
      await stdout.waitFor(/"msg":"ready"/, 60_000);
      const mia = sandbox.user("mia");
      const human = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
      await human.messages.send({ type: "channel", to: "general", topic: "cli", content: "!ping" });
      await until("the pong", () => replies.length === 1, 30_000);
      await human.close();
      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      expect(code).toBe(0);
    } catch (error) {
      child.kill("SIGKILL");
      throw new Error(`${(error as Error).message}\nstderr:\n${stderr.text}`);
    } finally {
      stop();
    }
    const recorded = readCassette(out);
    expect(recorded.header.contentHashed).toBe(true);
    const sent = recorded.exchanges.find((x) => x.method === "POST" && x.path === "/messages")!;
    expect(sent.fields.content).toMatch(/^sha256:[0-9a-f]{16}$/);
    expect(await readFile(out, "utf8")).not.toContain("!ping");
  }, 120_000);
});
