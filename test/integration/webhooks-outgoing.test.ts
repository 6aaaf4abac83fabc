import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  outgoingWebhookConfig,
  outgoingWebhookRoute,
  type OutgoingMessage,
} from "../../src/webhooks/outgoing.js";
import { createReceiver, type WebhookReceiver } from "../../src/webhooks/receiver.js";
import { captureLog, type CapturedLog } from "../helpers/log.js";

const TOKEN = "xvOzfurIutdRRVLzpXrIIHXJvNfaJLJ0";

/** The example payload of the OpenAPI description's /zulip-outgoing-webhook. */
function payload(
  overrides: Record<string, unknown> = {},
  content = "@**Outgoing webhook test** ping",
) {
  return {
    data: content,
    trigger: "mention",
    token: TOKEN,
    message: {
      subject: "Verona2",
      sender_email: "iago@zulip.com",
      timestamp: 1527876931,
      client: "website",
      submessages: [],
      recipient_id: 20,
      topic_links: [],
      sender_full_name: "Iago",
      avatar_url:
        "https://secure.gravatar.com/avatar/1f4f1575bf002ae562fea8fc4b861b09?d=identicon&version=1",
      rendered_content:
        '<p><span class="user-mention" data-user-id="25">@Outgoing webhook test</span> ping</p>',
      sender_id: 5,
      stream_id: 5,
      content,
      display_recipient: "Verona",
      type: "stream",
      id: 112,
      is_me_message: false,
      reactions: [],
      sender_realm_str: "zulip",
    },
    bot_email: "outgoing-bot@localhost",
    bot_full_name: "Outgoing webhook test",
    ...overrides,
  };
}

describe("outgoing-webhook mode", () => {
  let receiver: WebhookReceiver;
  let url: string;
  let log: CapturedLog;
  const seen: OutgoingMessage[] = [];

  // Stands in for the runtime's pipeline: a "plugin" that answers `ping` and ignores the rest.
  async function handleMessage(message: OutgoingMessage): Promise<string | undefined> {
    seen.push(message);
    const text = message.data.replace(/^@\*\*[^*]+\*\*\s*/, "");
    if (text === "ping") return `pong, ${message.message.sender_full_name}`;
    if (text === "fail") throw new Error("plugin failed");
    return undefined;
  }

  const call = async (body: unknown) => {
    const res = await fetch(`${url}/outgoing`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    log = captureLog();
    receiver = createReceiver({ logger: log.logger });
    receiver.mount(outgoingWebhookRoute({ token: TOKEN, handleMessage, logger: log.logger }));
    ({ url } = await receiver.listen());
  });

  afterAll(async () => {
    await receiver.close();
    expect(log.text()).not.toContain(TOKEN);
  });

  it("answers a mention with the plugin's reply as content", async () => {
    const a = await call(payload());
    expect(a).toEqual({ status: 200, body: { content: "pong, Iago" } });
    const m = seen.at(-1)!;
    expect(m.trigger).toBe("mention");
    expect(m.botEmail).toBe("outgoing-bot@localhost");
    expect(m.botFullName).toBe("Outgoing webhook test");
    expect(m.message).toMatchObject({ id: 112, subject: "Verona2", display_recipient: "Verona" });
    expect(m.message.rendered_content).toContain("user-mention");
  });

  it("answers response_not_required when the plugins have nothing to say", async () => {
    expect(await call(payload({}, "@**Outgoing webhook test** weather?"))).toEqual({
      status: 200,
      body: { response_not_required: true },
    });
  });

  it("reports the legacy private_message trigger as direct_message", async () => {
    await call(payload({ trigger: "private_message" }));
    expect(seen.at(-1)!.trigger).toBe("direct_message");
    await call(payload({ trigger: "direct_message" }));
    expect(seen.at(-1)!.trigger).toBe("direct_message");
  });

  it("answers 401 for a wrong or missing token, logs it, and runs nothing", async () => {
    const before = seen.length;
    expect((await call(payload({ token: "not-the-token" }))).status).toBe(401);
    expect((await call(payload({ token: undefined }))).status).toBe(401);
    expect(seen.length).toBe(before);
    const rejected = log
      .lines()
      .filter((l) => l.msg === "outgoing webhook rejected: authentication failed");
    expect(rejected.map((l) => l.reason)).toEqual(["wrong token", "missing token"]);
  });

  it("answers 400 naming the field when the payload is not an outgoing-webhook payload", async () => {
    const broken = payload();
    delete (broken.message as Record<string, unknown>).subject;
    const a = await call(broken);
    expect(a.status).toBe(400);
    expect(a.body.error).toMatch(/^invalid payload: message\.subject: /);
  });

  it("answers 500 when the handler throws", async () => {
    expect((await call(payload({}, "@**Outgoing webhook test** fail"))).status).toBe(500);
  });
});

describe("outgoingWebhook config", () => {
  it("defaults the path and names a short token", () => {
    expect(outgoingWebhookConfig.parse({ token: TOKEN })).toEqual({
      path: "/outgoing",
      token: TOKEN,
    });
    const bad = outgoingWebhookConfig.safeParse({ token: "short" });
    expect(bad.error!.issues[0]).toMatchObject({
      path: ["token"],
      message: "the outgoing-webhook token has at least 8 characters",
    });
  });
});
