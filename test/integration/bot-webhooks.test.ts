import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin, type Bot } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { loadConfig } from "../../src/config/load.js";
import { resolvePlugins } from "../../src/config/plugins.js";
import { configSecrets } from "../../src/config/secrets.js";
import { sandboxBot, waitForMessage } from "../helpers/bot.js";
import { captureLog, type CapturedLog } from "../helpers/log.js";
import { parsePrometheus } from "../helpers/prometheus.js";

const CI_SECRET = "ci-secret-7f3a9c2e";
const GITHUB_SECRET = "gh-secret-0b1c2d3e4f";
const DEPLOY_TOKEN = "deploy-token-5e6f7a8b";

const sign = (body: string, secret: string) =>
  createHmac("sha256", secret).update(body).digest("hex");

/** A plugin route, authenticated by token, that posts what it receives. */
const deploys = definePlugin({
  name: "deploys",
  description: "Announces deployments",
  setup(bot) {
    bot.webhook(
      "/hooks/deploy",
      { auth: { type: "token", token: DEPLOY_TOKEN } },
      async ({ payload }) => {
        const { service, version } = payload as { service: string; version: string };
        const sent = await bot.api.messages.send({
          type: "channel",
          to: "general",
          topic: service,
          content: `Deployed **${version}**`,
        });
        return { ok: true, id: sent.id };
      },
    );
    bot.command("ping", { description: "Check the bot" }, (ctx) => ctx.reply("pong"));
  },
});

describe("a bot with config routes, a built-in plugin's route and a plugin route", () => {
  let sandbox: Sandbox;
  let bot: Bot;
  let log: CapturedLog;
  let url: string;
  const file = "/virtual/bot.config.yaml";

  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 10 });
    const config = loadConfig(
      [
        "http: { port: 0 }",
        "plugins:",
        '  - github: { secret: "${GH_SECRET}", channel: general, events: [push] }',
        "webhooks:",
        "  - path: /hooks/ci",
        '    auth: { type: hmac, secret: "${CI_SECRET}", header: X-Signature, prefix: "sha256=" }',
        "    channel: general",
        '    topic: "{{ payload.repo }}"',
        '    template: "Build **{{ payload.build.status }}** on `{{ payload.branch }}`"',
      ].join("\n"),
      { GH_SECRET: GITHUB_SECRET, CI_SECRET },
      file,
    );
    const plugins = [...(await resolvePlugins(config, file)), { plugin: deploys }];
    log = captureLog();
    bot = sandboxBot(sandbox, {
      plugins,
      logger: log.logger,
      webhooks: config.webhooks,
      http: config.http,
    });
    await bot.start();
    url = bot.webhookUrl!;
  });

  afterAll(async () => {
    await bot.stop();
    await sandbox.close();
    const text = log.text();
    for (const secret of [CI_SECRET, GITHUB_SECRET, DEPLOY_TOKEN])
      expect(text).not.toContain(secret);
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });

  it("listens on loopback with every declared route", () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(bot.webhookRoutes().sort()).toEqual(["/github", "/hooks/ci", "/hooks/deploy"]);
  });

  it("config route: a good signature posts, a bad one gets 401 and posts nothing", async () => {
    const body = JSON.stringify({ repo: "widgets", branch: "main", build: { status: "passed" } });
    const before = sandbox.realm.messages.length;
    const bad = await post("/hooks/ci", body, {
      "x-signature": `sha256=${sign(body, "wrong-secret")}`,
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ error: "authentication failed" });
    expect(sandbox.realm.messages.length).toBe(before);
    expect(log.lines().at(-1)).toMatchObject({
      route: "/hooks/ci",
      msg: "webhook rejected: authentication failed",
    });

    const good = await post("/hooks/ci", body, {
      "x-signature": `sha256=${sign(body, CI_SECRET)}`,
    });
    expect([good.status, await good.json()]).toEqual([200, { ok: true }]);
    expect(sandbox.realm.messages.slice(before).map((m) => [m.topic, m.content])).toEqual([
      ["widgets", "Build **passed** on `main`"],
    ]);
  });

  it("the github plugin, loaded by name from the config: signed push posts, unsigned gets 401", async () => {
    const push = readFileSync(
      new URL("../../plugins/github/fixtures/push.json", import.meta.url),
      "utf8",
    );
    const before = sandbox.realm.messages.length;
    const unsigned = await post("/github", push, { "x-github-event": "push" });
    expect(unsigned.status).toBe(401);
    expect(sandbox.realm.messages.length).toBe(before);
    const signed = await post("/github", push, {
      "x-github-event": "push",
      "x-hub-signature-256": `sha256=${sign(push, GITHUB_SECRET)}`,
    });
    expect(signed.status).toBe(200);
    const message = await waitForMessage(sandbox, before, () => true);
    expect(message.topic).toBe("widgets");
    expect(message.content).toMatch(/^\*\*ada-lovelace\*\* \[pushed 2 commits\]/);
  });

  it("plugin route: the right token posts and answers what the handler returned, a wrong one 401", async () => {
    const body = JSON.stringify({ service: "billing", version: "v2.3.0" });
    const before = sandbox.realm.messages.length;
    expect((await post("/hooks/deploy", body, { "x-webhook-token": "not-the-token" })).status).toBe(
      401,
    );
    expect(sandbox.realm.messages.length).toBe(before);
    const res = await post("/hooks/deploy", body, { "x-webhook-token": DEPLOY_TOKEN });
    const answer = (await res.json()) as { ok: boolean; id: number };
    expect(res.status).toBe(200);
    expect(sandbox.realm.message(answer.id)).toMatchObject({
      topic: "billing",
      content: "Deployed **v2.3.0**",
    });
  });

  it("/healthz reports the queue connected and the last event's time", async () => {
    const human = sandbox.user("mia");
    const before = sandbox.realm.messages.length;
    await fetch(`${sandbox.url}/api/v1/messages`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${human.email}:${human.apiKey}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ type: "channel", to: "general", topic: "t", content: "!ping" }),
    });
    await waitForMessage(sandbox, before, (m) => m.content === "pong");
    const res = await fetch(`${url}/healthz`);
    const health = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(200);
    expect(health).toMatchObject({ status: "ok", queueConnected: true });
    expect(Date.now() - Date.parse(health.lastEventAt as string)).toBeLessThan(60_000);
  });

  it("/metrics parses as Prometheus text and counts events, replies, API calls and webhooks", async () => {
    const res = await fetch(`${url}/metrics`);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const families = parsePrometheus(await res.text());
    const value = (name: string, labels: Record<string, string> = {}) =>
      [...families.values()]
        .flatMap((f) => f.samples)
        .filter(
          (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
        )
        .reduce((sum, s) => sum + s.value, 0);
    expect(value("topicbot_events_received_total", { type: "message" })).toBeGreaterThanOrEqual(2);
    expect(value("topicbot_events_handled_total", { type: "message" })).toBeGreaterThanOrEqual(2);
    expect(value("topicbot_reply_latency_seconds_count")).toBe(1);
    expect(value("topicbot_api_calls_total", { endpoint: "POST /messages", status: "200" })).toBe(
      4,
    );
    expect(value("topicbot_api_calls_total", { endpoint: "GET /users/me", status: "200" })).toBe(1);
    expect(value("topicbot_api_calls_total", { endpoint: "GET /events" })).toBeGreaterThan(0);
    expect(value("topicbot_webhook_requests_total", { route: "/hooks/ci", status: "401" })).toBe(1);
    expect(value("topicbot_webhook_requests_total", { route: "/github", status: "200" })).toBe(1);
  });

  it("redacts every config secret when given to the logger", () => {
    const config = loadConfig(
      [
        "plugins:",
        "  - github: { secret: gh-0123456789, channel: dev }",
        "webhooks:",
        "  - { path: /a, auth: { type: token, token: tok-0123456789 }, channel: c, topic: t, template: x }",
        "outgoingWebhook: { token: out-0123456789 }",
      ].join("\n"),
      {
        ZULIP_SITE: "https://chat.example.com",
        ZULIP_EMAIL: "b@example.com",
        ZULIP_API_KEY: "key-0123456789",
      },
    );
    expect(configSecrets(config)).toEqual(
      expect.arrayContaining([
        "key-0123456789",
        "tok-0123456789",
        "out-0123456789",
        "gh-0123456789",
      ]),
    );
  });
});

describe("the receiver's life cycle", () => {
  it("is not started without routes or http:, and closes on stop", async () => {
    const sandbox = await startSandbox();
    try {
      const quiet = sandboxBot(sandbox);
      await quiet.start();
      expect(quiet.webhookUrl).toBeUndefined();
      await quiet.stop();

      const bot = sandboxBot(sandbox, { http: { port: 0 } });
      await bot.start();
      const url = bot.webhookUrl!;
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/nothing`, { method: "POST" })).status).toBe(404);
      await bot.stop();
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      await sandbox.close();
    }
  });

  it("fails to start, naming the port, when it cannot listen; a duplicate route names the plugin", async () => {
    const sandbox = await startSandbox();
    try {
      const first = sandboxBot(sandbox, { http: { port: 0 } });
      await first.start();
      const port = Number(new URL(first.webhookUrl!).port);
      const second = sandboxBot(sandbox, { http: { port } });
      await expect(second.start()).rejects.toThrow(
        new RegExp(`the webhook receiver cannot listen on 127\\.0\\.0\\.1:${port}: EADDRINUSE`),
      );
      await first.stop();

      const twice = definePlugin({
        name: "twice",
        setup(bot) {
          bot.webhook("/hook", () => undefined);
          bot.webhook("/hook", () => undefined);
        },
      });
      await expect(
        sandboxBot(sandbox, { plugins: [twice], http: { port: 0 } }).start(),
      ).rejects.toThrow(
        'plugin "twice" failed in setup: plugin "twice": webhook route "/hook": declared twice',
      );
    } finally {
      await sandbox.close();
    }
  });

  it("answers 503 on /healthz while the event queue is lost, 200 once registered again", async () => {
    const sandbox = await startSandbox({ heartbeatSeconds: 10 });
    const bot = sandboxBot(sandbox, { http: { port: 0 } });
    const health = async () => (await fetch(`${bot.webhookUrl}/healthz`)).status;
    try {
      await bot.start();
      expect(await health()).toBe(200);
      const fault = sandbox.faults.add({ route: "POST /register", status: 502 });
      expect(sandbox.expireQueues({ userId: sandbox.bot.userId })).toHaveLength(1);
      let status = 0;
      for (let i = 0; i < 200 && status !== 503; i++) {
        status = await health();
        if (status !== 503) await new Promise((r) => setTimeout(r, 10));
      }
      expect(status).toBe(503);
      expect(await (await fetch(`${bot.webhookUrl}/healthz`)).json()).toMatchObject({
        status: "unhealthy",
        queueConnected: false,
      });
      sandbox.faults.remove(fault);
      for (let i = 0; i < 500 && status !== 200; i++) {
        status = await health();
        if (status !== 200) await new Promise((r) => setTimeout(r, 10));
      }
      expect(status).toBe(200);
    } finally {
      await bot.stop();
      await sandbox.close();
    }
  });
});
