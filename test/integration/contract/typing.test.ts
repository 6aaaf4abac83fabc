// Behaviours of POST /typing ported from the server's zerver/tests/test_typing.py (views/typing.py, actions/typing.py).
import { expect, it } from "vitest";
import { describeContract, eventsDuring, needSandbox, rawRequest } from "./servers.js";

describeContract("POST /typing (upstream test_typing.py)", (server) => {
  const typing = (fields: Record<string, string>, role: "bot" | "member" = "bot") =>
    rawRequest(server(), role, "POST", "/typing", fields);

  // upstream: test_typing.py TypingValidateOperatorTest.test_missing_parameter
  it("refuses a request without op", async () => {
    const res = await typing({ to: "[1]" });
    expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "op" });
  });

  // upstream: test_typing.py TypingValidateOperatorTest.test_invalid_parameter
  it("refuses an unknown op", async () => {
    const res = await typing({ to: "[1]", op: "foo" });
    expect(res.status).toBe(400);
    expect(res.body.result).toBe("error");
  });

  // upstream: test_typing.py TypingValidateToArgumentsTest.test_empty_to_array_direct_messages ("Empty 'to' list")
  it("refuses an empty to list", async () => {
    const res = await typing({ op: "start", to: "[]" });
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Empty 'to' list" });
  });

  // upstream: test_typing.py TypingValidateToArgumentsTest.test_missing_recipient ("Missing 'to' argument", a JsonableError)
  it("refuses a DM typing without to", async () => {
    const res = await typing({ op: "start" });
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Missing 'to' argument" });
  });

  // upstream: test_typing.py TypingValidateToArgumentsTest.test_bogus_user_id ("Invalid user ID 9999999")
  it("refuses an unknown user ID", async () => {
    const res = await typing({ op: "start", to: "[9999999]" });
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Invalid user ID 9999999" });
  });

  // upstream: test_typing.py TypingValidateStreamIdTopicArgumentsTest.test_missing_stream_id
  it("refuses channel typing without stream_id", async () => {
    const res = await typing({ op: "start", type: "stream", topic: "x" });
    expect(res.body).toMatchObject({ msg: "Missing 'stream_id' argument" });
  });

  // upstream: test_typing.py TypingValidateStreamIdTopicArgumentsTest.test_missing_topic
  it("refuses channel typing without topic", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const stream_id = String(sandbox.realm.channelByName("general")!.streamId);
    const res = await typing({ op: "start", type: "stream", stream_id });
    expect(res.body).toMatchObject({ msg: "Missing topic" });
  });

  // upstream: test_typing.py TypingValidateStreamIdTopicArgumentsTest.test_invalid_stream_id
  it("refuses an unknown channel ID", async () => {
    const res = await typing({ op: "start", type: "stream", stream_id: "9999999", topic: "x" });
    expect(res.body).toMatchObject({ msg: "Invalid channel ID" });
  });

  // upstream: test_typing.py TypingHappyPathTestDirectMessages.test_start_to_another_user (sender and recipient get it)
  it("sends DM typing to the recipients and the typist", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.user("mia");
    for (const role of ["bot", "member"] as const) {
      const events = await eventsDuring(server().client(role), ["typing"], () =>
        typing({ op: "start", to: JSON.stringify([mia.userId]) }),
      );
      expect(events, role).toHaveLength(1);
      expect(events[0]).toMatchObject({
        op: "start",
        message_type: "direct",
        sender: { user_id: sandbox.bot.userId, email: sandbox.bot.email },
      });
      const recipients = (events[0]!.recipients as { user_id: number }[])
        .map((r) => r.user_id)
        .sort((a, b) => a - b);
      expect(recipients).toEqual([mia.userId, sandbox.bot.userId].sort((a, b) => a - b));
    }
  });

  // upstream: test_typing.py TypingLegacyMobileSupportTest / TypingHappyPathTestDirectMessages (type "private" is direct)
  it("accepts type private as direct", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const res = await typing({
      op: "stop",
      type: "private",
      to: JSON.stringify([sandbox.user("mia").userId]),
    });
    expect(res.status).toBe(200);
  });

  // upstream: test_typing.py TypingHappyPathTestStreams.test_start (every subscriber, the typist included)
  it("sends channel typing to every subscriber, the typist included", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const stream_id = sandbox.realm.channelByName("general")!.streamId;
    for (const role of ["bot", "member"] as const) {
      const events = await eventsDuring(server().client(role), ["typing"], () =>
        typing({ op: "start", type: "stream", stream_id: String(stream_id), topic: "typing" }),
      );
      expect(events, role).toEqual([
        expect.objectContaining({
          op: "start",
          message_type: "stream",
          stream_id,
          topic: "typing",
        }),
      ]);
    }
  });

  // upstream: test_typing.py TypingHappyPathTestStreams.test_max_stream_size_for_typing_notifications
  it("sends no channel typing events in a channel of more than 100 subscribers", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const big = sandbox.realm.addChannel("big-channel");
    sandbox.realm.subscribe(big, sandbox.bot.userId);
    for (let i = 0; i < 100; i++) big.subscribers.add(1_000_000 + i);
    const events = await eventsDuring(server().client(), ["typing"], () =>
      typing({ op: "start", type: "stream", stream_id: String(big.streamId), topic: "x" }),
    );
    expect(events).toEqual([]);
  });

  // upstream: test_typing.py (views/typing.py: send_private_typing_notifications off)
  it("refuses DM typing from a user who turned it off", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.realm.users.get(sandbox.user("mia").userId)!;
    mia.settings.send_private_typing_notifications = false;
    try {
      const res = await typing({ op: "start", to: JSON.stringify([sandbox.bot.userId]) }, "member");
      expect(res.body).toMatchObject({
        msg: "User has disabled typing notifications for direct messages",
      });
    } finally {
      mia.settings.send_private_typing_notifications = true;
    }
  });
});
