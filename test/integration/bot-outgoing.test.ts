import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin, type Bot } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import ping from "../../plugins/ping/index.js";
import { sandboxBot, waitForMessage } from "../helpers/bot.js";
import { captureLog, type CapturedLog } from "../helpers/log.js";
import { parsePrometheus } from "../helpers/prometheus.js";

const TOKEN = "xvOzfurIutdRRVLzpXrIIHXJvNfaJLJ0";

const greeter = definePlugin({
  name: "greeter",
  description: "Asks for a name",
  setup(bot) {
    bot.command("hello", { description: "Asks your name" }, async (ctx) => {
      const answer = await ctx.ask("What's your name?", { timeoutMs: 5_000 });
      await ctx.reply(answer ? `Hello, ${answer.text}!` : "Never mind.");
    });
    bot.command("survey", { description: "Asks two questions" }, async (ctx) => {
      const name = await ctx.ask("Your name?", { timeoutMs: 5_000 });
      const color = name && (await ctx.ask("Your favourite colour?", { timeoutMs: 5_000 }));
      await ctx.reply(name && color ? `${name.text} likes ${color.text}.` : "Never mind.");
    });
    bot.command("boom", { description: "Always fails" }, () => {
      throw new Error("kaboom");
    });
  },
});

describe("outgoing-webhook mode runs the same plugins as the event queue", () => {
  let sandbox: Sandbox;
  let bot: Bot;
  let log: CapturedLog;
  let nextId = 90_000;

  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 10 });
    log = captureLog();
    bot = sandboxBot(sandbox, {
      plugins: [ping, greeter],
      logger: log.logger,
      unknownCommandReply: false,
      http: { port: 0 },
      outgoingWebhook: { token: TOKEN },
    });
    await bot.start();
  });

  afterAll(async () => {
    await bot.stop();
    await sandbox.close();
    expect(log.text()).not.toContain(TOKEN);
  });

  /** The server's POST for a message from Mia: a mention in general > `topic`, or a direct message. */
  function payload(
    content: string,
    options: { direct?: boolean; token?: string; topic?: string; id?: number } = {},
  ) {
    const mia = sandbox.user("mia");
    const general = sandbox.realm.channelByName("general")!;
    const where = options.direct
      ? {
          type: "private",
          display_recipient: [
            { id: mia.userId, email: mia.email, full_name: mia.fullName },
            { id: sandbox.bot.userId, email: sandbox.bot.email, full_name: bot.me.fullName },
          ],
          subject: "",
        }
      : {
          type: "stream",
          stream_id: general.streamId,
          display_recipient: "general",
          subject: options.topic ?? "outgoing",
        };
    return {
      bot_email: sandbox.bot.email,
      bot_full_name: bot.me.fullName,
      data: content,
      trigger: options.direct ? "private_message" : "mention",
      token: options.token ?? TOKEN,
      message: {
        id: options.id ?? nextId++,
        sender_id: mia.userId,
        sender_email: mia.email,
        sender_full_name: mia.fullName,
        content,
        timestamp: Math.floor(Date.now() / 1000),
        ...where,
      },
    };
  }

  const call = async (body: unknown) => {
    const res = await fetch(`${bot.webhookUrl}/outgoing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("answers a mention with the plugin's reply, posting nothing itself", async () => {
    const before = sandbox.realm.messages.length;
    expect(await call(payload(`@**${bot.me.fullName}** ping`))).toEqual({
      status: 200,
      body: { content: "pong" },
    });
    expect(sandbox.realm.messages.length).toBe(before);
  });

  it("answers a direct message (the legacy private_message trigger), and help", async () => {
    expect(await call(payload("ping", { direct: true }))).toEqual({
      status: 200,
      body: { content: "pong" },
    });
    const help = await call(payload("help", { direct: true }));
    expect(help.body.content).toMatch(/ping/);
  });

  it("answers response_not_required when no plugin replies", async () => {
    expect(await call(payload(`@**${bot.me.fullName}** what's the weather?`))).toEqual({
      status: 200,
      body: { response_not_required: true },
    });
  });

  it("401 for a wrong token, and no plugin runs", async () => {
    const count = async (name: string) =>
      parsePrometheus(await bot.metrics.registry.expose())
        .get(name)!
        .samples.filter((s) => s.labels.type === "message" || s.labels.route === "/outgoing")
        .map((s) => `${JSON.stringify(s.labels)} ${s.value}`);
    const received = await count("topicbot_events_received_total");
    const wrong = payload(`@**${bot.me.fullName}** ping`, { token: "wrong-token-123" });
    expect((await call(wrong)).status).toBe(401);
    expect(await count("topicbot_events_received_total")).toEqual(received);
    expect(await count("topicbot_webhook_requests_total")).toContain(
      '{"route":"/outgoing","status":"401"} 1',
    );
    expect(
      log.lines().some((l) => l.msg === "outgoing webhook rejected: authentication failed"),
    ).toBe(true);
  });

  it("a failing handler: the error reply is the answer, and the message counts as failed", async () => {
    const failed = async () =>
      parsePrometheus(await bot.metrics.registry.expose())
        .get("topicbot_events_failed_total")!
        .samples.find((s) => s.labels.type === "message")?.value ?? 0;
    const before = await failed();
    const answer = await call(payload(`@**${bot.me.fullName}** boom`));
    expect(answer.body.content).toMatch(/^Sorry, something went wrong/);
    expect(await failed()).toBe(before + 1);
    expect(
      log
        .lines()
        .find((l) => l.msg === 'plugin "greeter" failed handling message ' + String(nextId - 1)),
    ).toBeDefined();
  });

  it("a question goes out in the answer; the reply to the answer is posted through the API", async () => {
    const topic = "dialog";
    const first = await call(payload(`@**${bot.me.fullName}** hello`, { topic }));
    expect(first).toEqual({ status: 200, body: { content: "What's your name?" } });
    const before = sandbox.realm.messages.length;
    const second = await call(payload(`@**${bot.me.fullName}** Ada`, { topic }));
    expect(second).toEqual({ status: 200, body: { response_not_required: true } });
    const posted = await waitForMessage(sandbox, before, (m) => m.senderId === sandbox.bot.userId);
    expect([posted.topic, posted.content]).toEqual([topic, "Hello, Ada!"]);
  });

  it("an answer that comes both ways (queue first, then webhook) answers one question once", async () => {
    const topic = "survey";
    const mention = `@**${bot.me.fullName}**`;
    const first = await call(payload(`${mention} survey`, { topic }));
    expect(first).toEqual({ status: 200, body: { content: "Your name?" } });
    const before = sandbox.realm.messages.length;

    // The server stores the answer (the bot's queue sees it) and POSTs it to the webhook.
    const mia = sandbox.user("mia");
    const general = sandbox.realm.channelByName("general")!;
    const sender = sandbox.realm.users.get(mia.userId)!;
    const stored = sandbox.realm.postMessage({
      sender,
      kind: "stream",
      channel: general,
      topic,
      content: `${mention} Ada`,
    });
    const deadline = Date.now() + 5_000;
    const skipped = () =>
      log
        .lines()
        .some((l) => l.messageId === stored.id && l.msg === "left to the outgoing webhook");
    while (!skipped()) {
      if (Date.now() > deadline) throw new Error("the queue copy was never handled");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await call(payload(`${mention} Ada`, { topic, id: stored.id }))).toEqual({
      status: 200,
      body: { response_not_required: true },
    });
    await waitForMessage(sandbox, before, (m) => m.content === "Your favourite colour?");
    expect(await call(payload(`${mention} blue`, { topic }))).toEqual({
      status: 200,
      body: { response_not_required: true },
    });
    const done = await waitForMessage(sandbox, before, (m) => m.content.endsWith("."));
    expect(done.content).toBe("Ada likes blue.");
    const fromBot = sandbox.realm.messages
      .slice(before)
      .filter((m) => m.senderId === sandbox.bot.userId)
      .map((m) => m.content);
    expect(fromBot).toEqual(["Your favourite colour?", "Ada likes blue."]);
  });

  it("from the event queue, mentions are left to the webhook while prefixed commands are answered", async () => {
    const mia = sandbox.user("mia");
    const client = {
      site: sandbox.url,
      auth: Buffer.from(`${mia.email}:${mia.apiKey}`).toString("base64"),
    };
    const say = (content: string) =>
      fetch(`${client.site}/api/v1/messages`, {
        method: "POST",
        headers: { authorization: `Basic ${client.auth}` },
        body: new URLSearchParams({ type: "channel", to: "general", topic: "queue", content }),
      });
    const before = sandbox.realm.messages.length;
    await say(`@**${bot.me.fullName}** ping`);
    await say("!ping");
    await waitForMessage(sandbox, before, (m) => m.content === "pong");
    // Messages of one topic are handled in order, so the mention was handled (and skipped) first.
    const fromBot = sandbox.realm.messages
      .slice(before)
      .filter((m) => m.senderId === sandbox.bot.userId);
    expect(fromBot.map((m) => m.content)).toEqual(["pong"]);
  });
});
