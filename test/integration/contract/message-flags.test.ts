// Behaviours of message flags ported from the server's zerver/tests/test_message_flags.py (actions/message_flags.py)
// and the subscription mute events of test_subs.py (actions/streams.py do_change_subscription_property).
import { beforeAll, expect, it } from "vitest";
import { describeContract, eventsDuring, needSandbox, rawRequest } from "./servers.js";

describeContract("message flags (upstream test_message_flags.py)", (server) => {
  const ids: number[] = [];
  let dm = 0;
  beforeAll(async () => {
    const sandbox = server().sandbox;
    if (!sandbox) return;
    const mia = server().client("member");
    for (const content of ["one", "two @**Topic Bot**", "three"])
      ids.push(
        (await mia.messages.send({ type: "channel", to: "sandbox", topic: "flags", content })).id,
      );
    dm = (await mia.messages.send({ type: "direct", to: [sandbox.bot.userId], content: "dm" })).id;
  });
  const flagsNarrow = (fields: Record<string, string>) =>
    rawRequest(server(), "bot", "POST", "/messages/flags/narrow", {
      narrow: "[]",
      op: "add",
      flag: "read",
      ...fields,
    });

  // upstream: test_message_flags.py UnreadCountTests.test_update_flags_for_narrow (the range and counts)
  it("marks a range read and answers the counts and processed IDs", async (ctx) => {
    needSandbox(ctx, server());
    const res = await flagsNarrow({ anchor: String(ids[0]), num_before: "0", num_after: "1" });
    expect(res.body).toMatchObject({
      processed_count: 2,
      updated_count: 2,
      first_processed_id: ids[0],
      last_processed_id: ids[1],
      found_oldest: false,
      found_newest: false,
    });
  });

  // upstream: test_message_flags.py UnreadCountTests.test_update_flags_for_narrow (include_anchor=false inside a range)
  it("refuses excluding the anchor inside a range", async () => {
    const res = await flagsNarrow({
      anchor: "0",
      include_anchor: "false",
      num_before: "1",
      num_after: "1",
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      msg: "The anchor can only be excluded at an end of the range",
    });
  });

  // upstream: test_message_flags.py UnreadCountTests.test_update_flags_for_narrow (bad narrow)
  it("refuses a bad narrow with BAD_NARROW", async () => {
    const res = await flagsNarrow({
      anchor: "newest",
      num_before: "1",
      num_after: "0",
      narrow: JSON.stringify([{ operator: "channel", operand: "nope" }]),
    });
    expect(res.body).toMatchObject({ code: "BAD_NARROW", desc: "unknown channel nope" });
  });

  // upstream: test_message_flags.py UnreadCountTests.test_update_flags_for_narrow (invalid anchor)
  it("refuses an invalid anchor", async () => {
    const res = await flagsNarrow({ anchor: "yesterday", num_before: "1", num_after: "0" });
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Invalid anchor" });
  });

  // upstream: test_message_flags.py MarkUnreadTest (update_message_flags remove events carry message_details, format_unread_message_details)
  it("sends message_details when marking messages unread", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    await flagsNarrow({ anchor: "oldest", num_before: "0", num_after: "100" });
    const events = await eventsDuring(server().client(), ["update_message_flags"], () =>
      flagsNarrow({ anchor: "oldest", num_before: "0", num_after: "100", op: "remove" }),
    );
    expect(events).toHaveLength(1);
    const details = events[0]!.message_details as Record<string, Record<string, unknown>>;
    const channel = sandbox.realm.channelByName("sandbox")!;
    expect(details[String(ids[0])]).toEqual({
      type: "stream",
      stream_id: channel.streamId,
      topic: "flags",
      unmuted_stream_msg: true,
    });
    expect(details[String(ids[1])]).toMatchObject({ type: "stream", mentioned: true });
    expect(details[String(dm)]).toEqual({
      type: "private",
      user_ids: [sandbox.user("mia").userId],
    });
  });

  // upstream: test_message_flags.py MarkUnreadTest (adding read sends no message_details)
  it("sends no message_details when marking read", async (ctx) => {
    needSandbox(ctx, server());
    const events = await eventsDuring(server().client(), ["update_message_flags"], () =>
      flagsNarrow({ anchor: "oldest", num_before: "0", num_after: "100" }),
    );
    expect(events[0]).toMatchObject({ op: "add", operation: "add", flag: "read", all: false });
    expect(events[0]).not.toHaveProperty("message_details");
  });

  // upstream: test_message_flags.py UnreadCountTests.test_update_flags_for_narrow (read-only flags)
  it("refuses flags a user may not change", async () => {
    for (const flag of ["mentioned", "historical", "has_alert_word"]) {
      const res = await flagsNarrow({ anchor: "newest", num_before: "1", num_after: "0", flag });
      expect(res.status, flag).toBe(400);
      expect(res.body.msg, flag).toBe(`Flag not editable: '${flag}'`);
    }
    const unknown = await flagsNarrow({
      anchor: "newest",
      num_before: "1",
      num_after: "0",
      flag: "invalid",
    });
    expect(unknown.body.msg).toBe("Invalid flag: 'invalid'");
  });

  // upstream: test_message_flags.py (views/message_flags.py mark_topic_as_read: "No such topic")
  it("refuses marking a topic read that the user has no message in", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const stream_id = String(sandbox.realm.channelByName("sandbox")!.streamId);
    const res = await rawRequest(server(), "bot", "POST", "/mark_topic_as_read", {
      stream_id,
      topic_name: "no such topic",
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "No such topic 'no such topic'" });
    const ok = await rawRequest(server(), "bot", "POST", "/mark_topic_as_read", {
      stream_id,
      topic_name: "FLAGS",
    });
    expect(ok.status).toBe(200);
  });

  // upstream: test_message_flags.py (mark_topic_as_read on a channel the user cannot access: "Invalid channel ID")
  it("refuses marking a topic read in an unknown channel", async () => {
    const res = await rawRequest(server(), "bot", "POST", "/mark_topic_as_read", {
      stream_id: "99999",
      topic_name: "x",
    });
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Invalid channel ID" });
  });
});

describeContract("mute events (upstream test_subs.py SubscriptionPropertiesTest)", (server) => {
  // upstream: test_subs.py SubscriptionPropertiesTest.test_set_stream_mute (in_home_view event first, then is_muted)
  it("sends the in_home_view event before the is_muted one", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const stream_id = sandbox.realm.channelByName("general")!.streamId;
    const client = server().client("member");
    const events = await eventsDuring(client, ["subscription"], () =>
      client.subscriptions.updateProperties({
        subscription_data: [{ stream_id, property: "is_muted", value: true }],
      }),
    );
    expect(events.map((e) => [e.op, e.property, e.value, e.stream_id])).toEqual([
      ["update", "in_home_view", false, stream_id],
      ["update", "is_muted", true, stream_id],
    ]);
  });

  // upstream: test_subs.py SubscriptionPropertiesTest.test_set_in_home_view (legacy name, same two events)
  it("sends the same two events for the legacy in_home_view", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const stream_id = sandbox.realm.channelByName("general")!.streamId;
    const client = server().client("member");
    const events = await eventsDuring(client, ["subscription"], () =>
      client.subscriptions.updateProperties({
        subscription_data: [{ stream_id, property: "in_home_view", value: true }],
      }),
    );
    expect(events.map((e) => [e.property, e.value])).toEqual([
      ["in_home_view", true],
      ["is_muted", false],
    ]);
  });
});
