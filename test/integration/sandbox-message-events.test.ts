// The events a send queues, as a client polls them over loopback: their fields in the server's order, the local echo's ID where it belongs, ids in sequence.
// Upstream: the message dict's keys and order are zerver/lib/message_cache.py's (MessageDict), sent as events by zerver/actions/message_send.py.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

const basic = (u: { email: string; apiKey: string }): string =>
  `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;

describe("sandbox message events", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  const call = async (handle: string, method: string, path: string, fields = {}) => {
    const res = await fetch(`${sandbox.url}/api/v1${path}`, {
      method,
      headers: {
        authorization: basic(sandbox.user(handle)),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: method === "GET" ? undefined : new URLSearchParams(fields).toString(),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };

  it("queues message events with their fields in order, the local echo's ID before the event ID", async () => {
    const reg = await call("mia", "POST", "/register", {
      event_types: '["message","user_topic"]',
      apply_markdown: "true",
    });
    const queueId = reg.queue_id as string;
    await call("mia", "POST", "/messages", {
      type: "channel",
      to: "general",
      topic: "event shapes",
      content: "first with **some** markdown",
      queue_id: queueId,
      local_id: "12.01",
    });
    await call("mia", "POST", "/messages", {
      type: "channel",
      to: "general",
      topic: "event shapes",
      content: "second, from elsewhere",
    });
    const polled = await call(
      "mia",
      "GET",
      `/events?queue_id=${encodeURIComponent(queueId)}&last_event_id=-1&dont_block=true`,
    );
    const events = polled.events as Record<string, unknown>[];
    // Starting the topic follows it (user_topic), then each message.
    expect(events.map((e) => [e.type, e.id])).toEqual([
      ["user_topic", 0],
      ["message", 1],
      ["message", 2],
    ]);
    expect(Object.keys(events[0]!)).toEqual([
      "type",
      "stream_id",
      "topic_name",
      "last_updated",
      "visibility_policy",
      "id",
    ]);
    expect(Object.keys(events[1]!)).toEqual(["type", "message", "flags", "local_message_id", "id"]);
    expect(events[1]!.local_message_id).toBe("12.01");
    expect(Object.keys(events[2]!)).toEqual(["type", "message", "flags", "id"]);
    const first = events[1]!.message as Record<string, unknown>;
    expect(first.content).toBe("<p>first with <strong>some</strong> markdown</p>");
    expect(Object.keys(first).slice(-4)).toEqual([
      "type",
      "stream_id",
      "display_recipient",
      "subject",
    ]);
    // Sent from no client people type into: not read for its sender.
    expect(events[1]!.flags).toEqual([]);
    // The event's message is the fetched message without its flags, key for key in order.
    const fetched = (await call("mia", "GET", `/messages/${first.id as number}`)).message as Record<
      string,
      unknown
    >;
    const { flags: _flags, ...withoutFlags } = fetched;
    expect(Object.keys(first)).toEqual(Object.keys(withoutFlags));
    expect(first).toEqual(withoutFlags);
  });
});
