import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { parsePrometheus } from "../helpers/prometheus.js";
import { bin, cleanEnv, runBot, watch } from "../helpers/process.js";

describe("bot send, spawned through the real executable", () => {
  let sandbox: Sandbox;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    sandbox = await startSandbox();
    env = {
      ...cleanEnv(),
      ZULIP_SITE: sandbox.url,
      ZULIP_EMAIL: sandbox.bot.email,
      ZULIP_API_KEY: sandbox.bot.apiKey,
    };
  });
  afterAll(() => sandbox.close());

  it("posts what is piped on standard input, prints the ID and exits 0", async () => {
    const run = await runBot(["send", "--to", "general", "--topic", "ci"], {
      env,
      input: "Build #318 passed\n",
    });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    const last = sandbox.realm.messages.at(-1)!;
    expect(run.stdout.trim()).toBe(String(last.id));
    expect([last.topic, last.content, last.senderId]).toEqual([
      "ci",
      "Build #318 passed",
      sandbox.bot.userId,
    ]);
  });

  it("exits 1 with the server's code on a bad channel, and 2 without credentials", async () => {
    const bad = await runBot(["send", "--to", "nope", "--topic", "ci", "hello"], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe("error: STREAM_DOES_NOT_EXIST: Channel 'nope' does not exist");
    const dir = await mkdtemp(join(tmpdir(), "topicbot-send-"));
    try {
      const none = await runBot(["send", "--to", "general", "--topic", "ci", "hi"], { cwd: dir });
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/^error: no server credentials/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("bot start with schedules, webhooks, the github plugin and http", () => {
  let child: ChildProcess | undefined;
  let dir: string;
  afterEach(async () => {
    if (child && child.exitCode === null) child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the config's routes, the built-in github plugin, /healthz and /metrics", async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-notifiers-"));
    const config = join(dir, "bot.config.yaml");
    await writeFile(
      config,
      [
        "http: { port: 0 }",
        "logging: { level: info, format: json }",
        "plugins:",
        "  - ping",
        '  - github: { secret: "${GH_SECRET}", channel: general }',
        "schedules:",
        '  - { name: nightly, cron: "0 3 * * *", timeZone: UTC, channel: general, topic: nightly, message: "Nightly {{ date }}" }',
        "webhooks:",
        "  - path: /hooks/uptime",
        '    auth: { type: token, token: "${UPTIME_TOKEN}" }',
        "    channel: general",
        "    topic: uptime",
        '    template: "{{ payload.monitor.name }} is **{{ payload.status }}**"',
        "",
      ].join("\n"),
    );
    const secrets = { GH_SECRET: "gh-secret-4a5b6c7d8e", UPTIME_TOKEN: "uptime-token-9f8e7d6c" };
    child = spawn(process.execPath, [bin, "start", "-c", config], {
      cwd: dir,
      env: { ...cleanEnv(), ...secrets },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = watch(child.stdout!);
    const stderr = watch(child.stderr!);
    const [ready] = await stdout.waitFor(/\{[^\n]*"msg":"ready"\}/, 30_000);
    const info = JSON.parse(ready!) as {
      plugins: string[];
      schedules: string[];
      webhooks: { url: string; routes: string[] };
    };
    expect(info.plugins).toEqual(["ping", "github"]);
    expect(info.schedules).toEqual(["nightly"]);
    expect(info.webhooks.routes.sort()).toEqual(["/github", "/hooks/uptime"]);
    const url = info.webhooks.url;
    const [, site] = await stderr.waitFor(/embedded sandbox at (http:\/\/127\.0\.0\.1:\d+)/, 5_000);
    const [, email, apiKey] = await stderr.waitFor(/email (\S+)\s+API key (\w+)/, 5_000);

    const body = JSON.stringify({ monitor: { name: "api" }, status: "down" });
    const wrong = await fetch(`${url}/hooks/uptime?token=nope-nope-nope`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(wrong.status).toBe(401);
    const res = await fetch(`${url}/hooks/uptime?token=${secrets.UPTIME_TOKEN}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect([res.status, await res.json()]).toEqual([200, { ok: true }]);

    const human = createClient({ site: site!, email: email!, apiKey: apiKey! });
    try {
      const { messages } = await human.messages.list({
        anchor: "newest",
        num_before: 5,
        apply_markdown: false,
        num_after: 0,
        narrow: [{ operator: "channel", operand: "general" }],
      });
      expect(messages.map((m) => [m.subject, m.content])).toContainEqual([
        "uptime",
        "api is **down**",
      ]);
    } finally {
      await human.close();
    }
    expect((await (await fetch(`${url}/healthz`)).json()) as object).toMatchObject({
      status: "ok",
      queueConnected: true,
    });
    const families = parsePrometheus(await (await fetch(`${url}/metrics`)).text());
    const sample = (family: string, labels: Record<string, string>) =>
      families
        .get(family)
        ?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
    expect(sample("topicbot_api_calls_total", { endpoint: "POST /messages", status: "200" })).toBe(
      1,
    );
    expect(sample("topicbot_api_calls_total", { endpoint: "POST /register", status: "200" })).toBe(
      1,
    );
    expect(
      sample("topicbot_webhook_requests_total", { route: "/hooks/uptime", status: "401" }),
    ).toBe(1);

    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(0);
    for (const secret of Object.values(secrets)) expect(stdout.text).not.toContain(secret);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 60_000);
});
