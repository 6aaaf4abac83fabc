// Behaviours of POST /messages ported from the server's zerver/tests/test_message_send.py (and zerver/lib/addressee.py).
import { beforeAll, expect, it } from "vitest";
import { describeContract, needSandbox, rawRequest } from "./servers.js";

describeContract("POST /messages (upstream test_message_send.py)", (server) => {
  let secretId = 0;
  beforeAll(() => {
    const sandbox = server().sandbox;
    if (!sandbox) return;
    // A private channel the bot's owner (Olivia) is in, and the bot is not.
    const secret = sandbox.realm.addChannel("owners-secret", "", true);
    sandbox.realm.subscribe(secret, sandbox.user("olivia").userId);
    secretId = secret.streamId;
    sandbox.realm.addChannel("nobodys-secret", "", true);
  });
  const send = (role: "bot" | "member" | "guest", fields: Record<string, string>) =>
    rawRequest(server(), role, "POST", "/messages", { content: "hello", ...fields });

  // upstream: test_message_send.py MessagePOSTTest.test_message_to_stream_by_name
  it("sends to a channel by name", async () => {
    const res = await send("bot", { type: "stream", to: "general", topic: "by name" });
    expect(res.status).toBe(200);
    expect(typeof res.body.id).toBe("number");
  });

  // upstream: test_message_send.py MessagePOSTTest.test_api_message_to_stream_by_name (JSON-encoded name, extract_stream_indicator)
  it("sends to a channel given as a JSON-encoded name or a one-name JSON list", async () => {
    for (const to of ['"general"', '["general"]']) {
      const res = await send("bot", { type: "stream", to, topic: "json name" });
      expect(res.status, to).toBe(200);
    }
  });

  // upstream: test_message_send.py MessagePOSTTest.test_message_to_stream_by_id
  it("sends to a channel by ID, also as a one-ID JSON list", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const id = sandbox.realm.channelByName("general")!.streamId;
    for (const to of [String(id), `[${id}]`]) {
      const res = await send("bot", { type: "channel", to, topic: "by id" });
      expect(res.status, to).toBe(200);
    }
  });

  // upstream: test_message_send.py MessagePOSTTest.test_message_to_nonexistent_stream (StreamDoesNotExistError, `stream`)
  it("refuses an unknown channel name with STREAM_DOES_NOT_EXIST and the name", async () => {
    const res = await send("bot", { type: "stream", to: "nonexistent_stream", topic: "x" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "STREAM_DOES_NOT_EXIST",
      msg: "Channel 'nonexistent_stream' does not exist",
      stream: "nonexistent_stream",
    });
  });

  // upstream: test_message_send.py MessagePOSTTest.test_message_to_stream_with_nonexistent_id (StreamWithIDDoesNotExistError, `stream_id`)
  it("refuses an unknown channel ID with STREAM_DOES_NOT_EXIST and the ID", async () => {
    const res = await send("bot", { type: "stream", to: "99999", topic: "x" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "STREAM_DOES_NOT_EXIST",
      msg: "Channel with ID '99999' does not exist",
      stream_id: 99999,
    });
  });

  // upstream: test_message_send.py MessagePOSTTest.test_message_to_stream_with_no_subscribers / test_sending_message_as_stream_post_policy (private: subscribers only)
  it("refuses a private channel to a non-subscriber", async () => {
    const res = await send("member", { type: "stream", to: "nobodys-secret", topic: "x" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "BAD_REQUEST",
      msg: "Not authorized to send to channel 'nobodys-secret'",
    });
  });

  // upstream: test_message_send.py StreamMessagesTest.test_bot_can_send_to_owner_stream (access_stream_for_send_message)
  it("lets a bot post to a private channel its owner is subscribed to", async (ctx) => {
    needSandbox(ctx, server());
    const res = await send("bot", { type: "stream", to: "owners-secret", topic: "owner" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byId = await send("bot", { type: "stream", to: String(secretId), topic: "owner" });
    expect(byId.status).toBe(200);
  });

  // upstream: test_message_send.py StreamMessagesTest.test_bot_can_send_to_owner_stream (the bot's owner is not subscribed)
  it("refuses a bot in a private channel its owner is not in", async () => {
    const res = await send("bot", { type: "stream", to: "nobodys-secret", topic: "x" });
    expect(res.body).toMatchObject({ msg: "Not authorized to send to channel 'nobodys-secret'" });
  });

  // upstream: test_message_send.py MessagePOSTTest.test_personal_message_by_id
  it("sends a direct message to user IDs", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const res = await send("bot", {
      type: "private",
      to: JSON.stringify([sandbox.user("mia").userId]),
    });
    expect(res.status).toBe(200);
  });

  // upstream: test_message_send.py MessagePOSTTest.test_personal_message (comma-separated emails, extract_private_recipients)
  it("sends a direct message to comma-separated emails", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.user("mia").email;
    const adam = sandbox.user("adam").email;
    const res = await send("bot", { type: "private", to: `${mia}, ${adam}` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { message } = await server()
      .client()
      .messages.get({ message_id: res.body.id as number });
    const ids = (message.display_recipient as { id: number }[])
      .map((r) => r.id)
      .sort((a, b) => a - b);
    expect(ids).toEqual(
      [sandbox.user("mia").userId, sandbox.user("adam").userId, sandbox.bot.userId].sort(
        (a, b) => a - b,
      ),
    );
  });

  // upstream: test_message_send.py MessagePOSTTest.test_personal_message_to_email_list_json (JSON list and JSON string of emails)
  it("sends a direct message to a JSON list of emails, or one email as JSON text", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.user("mia").email;
    for (const to of [JSON.stringify([mia]), JSON.stringify(mia), mia]) {
      const res = await send("bot", { type: "direct", to });
      expect(res.status, to).toBe(200);
    }
  });

  // upstream: test_message_send.py MessagePOSTTest.test_personal_message_to_nonexistent_user
  it("refuses a direct message to an unknown email", async () => {
    const res = await send("bot", { type: "private", to: "nonexistent@zulip.com" });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "BAD_REQUEST",
      msg: "Invalid email 'nonexistent@zulip.com'",
    });
  });

  // upstream: test_message_send.py MessagePOSTTest.test_invalid_type
  it("refuses an unknown message type", async () => {
    const res = await send("bot", { type: "invalid type", to: "general", topic: "x" });
    expect(res.status).toBe(400);
    expect(res.body.result).toBe("error");
  });

  // upstream: test_message_send.py MessagePOSTTest.test_empty_message
  it("refuses empty content", async () => {
    const res = await send("bot", { type: "stream", to: "general", topic: "x", content: " " });
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Message must not be empty" });
  });

  // upstream: test_message_send.py MessagePOSTTest.test_missing_topic
  it("refuses a channel message without topic", async () => {
    const res = await send("bot", { type: "stream", to: "general" });
    expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "topic" });
  });

  // upstream: test_message_send.py MessagePOSTTest.test_invalid_topic (control characters)
  it("refuses a topic with a control character", async () => {
    const res = await send("bot", { type: "stream", to: "general", topic: "Test\u0000topic" });
    expect(res.status).toBe(400);
    expect(String(res.body.msg)).toMatch(/Invalid character in topic/);
  });

  // upstream: test_message_send.py MessagePOSTTest.test_message_with_null_bytes (normalize_body)
  it("refuses content with a null byte", async () => {
    const res = await send("bot", {
      type: "stream",
      to: "general",
      topic: "x",
      content: "a\u0000b",
    });
    expect(res.body).toMatchObject({ msg: "Message must not contain null bytes" });
  });
});

describeContract(
  "avatar_url on messages (upstream test_message_fetch.py MessageDictTest / zerver/lib/avatar.py get_avatar_field)",
  (server) => {
    let fromMia = 0;
    let fromAdam = 0;
    beforeAll(async () => {
      if (!server().sandbox) return;
      fromMia = (
        await server()
          .client("member")
          .messages.send({ type: "channel", to: "general", topic: "avatars", content: "mia" })
      ).id;
      fromAdam = (
        await server()
          .client("admin")
          .messages.send({ type: "channel", to: "general", topic: "avatars", content: "adam" })
      ).id;
    });
    const fetched = async (clientGravatar?: boolean) => {
      const page = await server()
        .client()
        .messages.list({
          anchor: "newest",
          num_before: 10,
          num_after: 0,
          narrow: [{ operator: "topic", operand: "avatars" }],
          ...(clientGravatar === undefined ? {} : { client_gravatar: clientGravatar }),
        });
      return new Map(
        page.messages.map((m) => [m.id, (m as { avatar_url: string | null }).avatar_url]),
      );
    };

    // upstream: test_message_fetch.py MessageDictTest.test_avatar_url (uploaded avatar: always a URL)
    it("gives the uploaded avatar's URL whatever client_gravatar says", async (ctx) => {
      needSandbox(ctx, server());
      for (const flag of [undefined, true, false])
        expect((await fetched(flag)).get(fromAdam)).toMatch(/\/user_avatars\/.+\?version=\d+$/);
    });

    // upstream: test_message_fetch.py MessageDictTest.test_avatar_url (client_gravatar=false: the external URL)
    it("gives the external provider's URL with client_gravatar false", async (ctx) => {
      needSandbox(ctx, server());
      expect((await fetched(false)).get(fromMia)).toMatch(
        /^https:\/\/secure\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=identicon&version=\d+$/,
      );
    });

    // upstream: test_message_fetch.py MessageDictTest.test_avatar_url (client_gravatar default true: null for a visible email)
    it("gives null for an external avatar by default, the client computes it", async (ctx) => {
      needSandbox(ctx, server());
      expect((await fetched()).get(fromMia)).toBeNull();
      const { message } = await server().client().messages.get({ message_id: fromMia });
      expect((message as { avatar_url: unknown }).avatar_url).toBeNull();
    });

    // upstream: test_events.py (message events carry avatar_url per client_gravatar)
    it("gives the URL in message events registered with client_gravatar false", async (ctx) => {
      needSandbox(ctx, server());
      const reg = await server()
        .client()
        .events.register({ event_types: ["message"], client_gravatar: false });
      await server()
        .client("member")
        .messages.send({ type: "channel", to: "general", topic: "avatars", content: "evt" });
      const { events } = await server()
        .client()
        .events.get({ queue_id: reg.queue_id!, last_event_id: -1, dont_block: true });
      const event = events.find((e) => e.type === "message") as unknown as {
        message: { avatar_url: unknown };
      };
      expect(event.message.avatar_url).toMatch(/gravatar/);
    });
  },
);
