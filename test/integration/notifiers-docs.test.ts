import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { botConfig, loadConfig, resolvePlugins, type BotConfig } from "../../src/config/index.js";
import { sandboxBot, waitForMessage } from "../helpers/bot.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const doc = readFileSync(`${root}docs/notifiers.md`, "utf8");
const blocks = [...doc.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map(([, lang, text]) => ({
  lang: lang!,
  text: text!,
}));
const env = {
  CI_WEBHOOK_SECRET: "ci-secret-from-the-docs",
  UPTIME_TOKEN: "uptime-token-from-the-docs",
  OUTGOING_WEBHOOK_TOKEN: "outgoing-token-from-the-docs",
  GITHUB_WEBHOOK_SECRET: "github-secret-from-the-docs",
  DEPLOY_TOKEN: "deploy-token-from-the-docs",
};
const zuliprc = "[api]\nemail=bot@example.com\nkey=abcdefgh\nsite=https://chat.example.com\n";

/** YAML blocks that are bot.config.yaml sections (not CI or Prometheus files). */
const configBlocks = blocks.filter(({ lang, text }) => {
  if (lang !== "yaml") return false;
  const value = parse(text) as unknown;
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.keys(value).every((key) => key in botConfig.shape)
  );
});
const load = (text: string): BotConfig =>
  loadConfig(text, env, `${root}bot.config.yaml`, { readFile: () => zuliprc });
const block = (lang: string, marker: string) =>
  blocks.find((b) => b.lang === lang && b.text.includes(marker))!.text;

describe("docs/notifiers.md's examples run as written", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 10 });
    for (const name of ["ci", "ops", "dev", "deploys"]) sandbox.realm.addChannel(name);
  });
  afterAll(() => sandbox.close());

  it("every bot.config.yaml example loads, plugins included", async () => {
    expect(configBlocks.length).toBe(5);
    for (const { text } of configBlocks) {
      const config = load(text);
      await resolvePlugins(config, `${root}bot.config.yaml`);
    }
  });

  it("the plugin example is examples/deploys/index.ts, verbatim", () => {
    expect(block("ts", "export default definePlugin")).toBe(
      readFileSync(`${root}examples/deploys/index.ts`, "utf8"),
    );
  });

  it("the webhooks example: the signed curl and the token curl post what the comments say", async () => {
    const config = load(block("yaml", "/hooks/ci"));
    const bot = sandboxBot(sandbox, {
      webhooks: config.webhooks,
      http: { ...config.http, port: 0 },
    });
    await bot.start();
    try {
      const sh = block("sh", "openssl dgst");
      const body = /^body='(.*)'$/m.exec(sh)![1]!;
      const sig = createHmac("sha256", env.CI_WEBHOOK_SECRET).update(body).digest("hex");
      const before = sandbox.realm.messages.length;
      const res = await fetch(`${bot.webhookUrl}/hooks/ci`, {
        method: "POST",
        headers: { "content-type": "application/json", "X-Signature": `sha256=${sig}` },
        body,
      });
      expect(await res.json()).toEqual({ ok: true });
      const expected = /^# (Build .*)$/m.exec(sh)![1];
      const ci = await waitForMessage(sandbox, before, () => true);
      expect([sandbox.realm.channels.get(ci.streamId!)!.name, ci.topic, ci.content]).toEqual([
        "ci",
        "widgets",
        expected,
      ]);

      const uptimeBody = /-d '(\{"monitor".*\})'/.exec(sh)![1]!;
      const after = sandbox.realm.messages.length;
      const up = await fetch(`${bot.webhookUrl}/hooks/uptime?token=${env.UPTIME_TOKEN}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: uptimeBody,
      });
      expect(await up.json()).toEqual({ ok: true });
      const [, channel, topic, content] =
        /# \{"ok":true\} {2}and the bot posts in #(\w+) > (\w+): (.*)$/m.exec(
          sh.slice(sh.indexOf("a shared token")),
        )!;
      const ops = await waitForMessage(sandbox, after, () => true);
      expect([sandbox.realm.channels.get(ops.streamId!)!.name, ops.topic, ops.content]).toEqual([
        channel,
        topic,
        content,
      ]);
    } finally {
      await bot.stop();
    }
  });

  it("the outgoing-webhook example answers the documented curl with pong", async () => {
    const config = load(block("yaml", "outgoingWebhook:"));
    const plugins = await resolvePlugins(config, `${root}bot.config.yaml`);
    const bot = sandboxBot(sandbox, {
      plugins,
      outgoingWebhook: config.outgoingWebhook,
      http: { port: 0 },
    });
    await bot.start();
    try {
      const sh = block("sh", "/outgoing");
      const json = /-d '(\{[\s\S]*\})'\n/
        .exec(sh)![1]!
        .replace(`'"$OUTGOING_WEBHOOK_TOKEN"'`, env.OUTGOING_WEBHOOK_TOKEN);
      const res = await fetch(`${bot.webhookUrl}${config.outgoingWebhook!.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: json,
      });
      const expected = /^# (\{.*\})$/m.exec(sh)![1]!;
      expect(await res.json()).toEqual(JSON.parse(expected));
    } finally {
      await bot.stop();
    }
  });
});
