// Topics renamed and messages moved over loopback HTTP: propagate_mode, the update_message events a bot receives, Notification Bot's notices, and the server's rules and time limits.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessageMoveWindowError } from "../../src/client/index.js";
import { apiFailure, sandboxPeople } from "../helpers/sandbox-people.js";
import { eventSchemas } from "../../src/api/index.js";
import { ManualClock, startSandbox, type Sandbox } from "../../src/sandbox/index.js";

describe("moving messages and renaming topics", () => {
  let sandbox: Sandbox;
  let clock: ManualClock;
  const people = sandboxPeople(() => sandbox);
  const as = people.as;
  const send = async (topic: string, content: string, handle = "mia", to = "general") =>
    (await as(handle).messages.send({ type: "channel", to, topic, content })).id;
  const failure = apiFailure;
  const listen = async (handle: string, types: string[]) => {
    const { queue_id } = await as(handle).events.register({ event_types: types });
    return async () =>
      (
        await as(handle).events.get({ queue_id: queue_id!, last_event_id: -1, dont_block: true })
      ).events.filter((e) => e.type !== "heartbeat");
  };
  const general = () => sandbox.realm.channelByName("general")!;

  beforeAll(async () => {
    clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
    sandbox = await startSandbox({ clock });
  });
  afterAll(async () => {
    await people.close();
    await sandbox.close();
  });

  // test_message_edit.py: test_propagate_topic_forward / test_propagate_all_topics, and the
  // update_message event of test_events.py (test_change_subject).
  it("renames a topic with change_all: one update_message event with the server's fields, and a breadcrumb", async () => {
    const a = await send("lunch", "pizza?");
    const b = await send("lunch", "soup!", "olivia");
    const c = await send("lunch", "both");
    const events = await listen("bot", ["update_message", "message"]);
    await as("olivia").messages.update({
      message_id: b,
      topic: "food",
      propagate_mode: "change_all",
    });
    const got = await events();
    const update = got.find((e) => e.type === "update_message")!;
    expect(update).toEqual({
      id: expect.any(Number),
      type: "update_message",
      user_id: sandbox.user("olivia").userId,
      edit_timestamp: expect.any(Number),
      message_id: b,
      message_ids: [a, b, c],
      flags: expect.any(Array),
      rendering_only: false,
      stream_id: general().streamId,
      stream_name: "general",
      propagate_mode: "change_all",
      orig_subject: "lunch",
      subject: "food",
      topic_links: [],
    });
    expect(eventSchemas.update_message.safeParse(update).success).toBe(true);
    // The breadcrumb Notification Bot posts in the new topic (send_notification_to_new_thread defaults true).
    const notice = got.find((e) => e.type === "message")!.message as Record<string, unknown>;
    expect(notice).toMatchObject({
      subject: "food",
      sender_full_name: "Notification Bot",
    });
    expect(notice.content).toContain("moved here from");
    for (const id of [a, b, c])
      expect((await as("mia").messages.get({ message_id: id })).message.subject).toBe("food");
  });

  it("moves the message alone (change_one) or it and those after it (change_later)", async () => {
    const [a, b, c] = [
      await send("split", "1"),
      await send("split", "2"),
      await send("split", "3"),
    ];
    const events = await listen("bot", ["update_message"]);
    await as("mia").messages.update({
      message_id: b,
      topic: "later",
      propagate_mode: "change_later",
      send_notification_to_new_thread: false,
    });
    await as("mia").messages.update({
      message_id: a,
      topic: "alone",
      send_notification_to_new_thread: false,
    });
    expect((await events()).map((e) => [e.propagate_mode, e.message_ids])).toEqual([
      ["change_later", [b, c]],
      ["change_one", [a]],
    ]);
  });

  it("moves a topic to another channel: new_stream_id, the original topic, and notices in both threads when asked", async () => {
    const id = await send("travel", "pack light");
    const sandboxChannel = sandbox.realm.channelByName("sandbox")!;
    const events = await listen("bot", ["update_message", "message"]);
    await as("mia").messages.update({
      message_id: id,
      stream_id: sandboxChannel.streamId,
      propagate_mode: "change_all",
      send_notification_to_old_thread: true,
    });
    const got = await events();
    expect(got.find((e) => e.type === "update_message")).toMatchObject({
      stream_id: general().streamId,
      new_stream_id: sandboxChannel.streamId,
      orig_subject: "travel",
      propagate_mode: "change_all",
      message_ids: [id],
    });
    expect(got.find((e) => e.type === "update_message")).not.toHaveProperty("subject");
    const notices = got
      .filter((e) => e.type === "message")
      .map((e) => e.message as { display_recipient: string; content: string });
    expect(notices.map((n) => n.display_recipient)).toEqual(["sandbox", "general"]);
    expect(notices[1]!.content).toContain("This topic was moved to");
  });

  // do_update_message: subscribers of a channel with shared history who never received the
  // message are told too, with the flags of a message they have read (subscriber_info).
  it("tells subscribers who joined after the message, with flags read", async () => {
    const later = sandbox.realm.addChannel("latecomers");
    sandbox.realm.subscribe(later, sandbox.user("mia").userId);
    const id = await send("before you", "posted early", "mia", "latecomers");
    sandbox.realm.subscribe(later, sandbox.user("olivia").userId);
    const events = await listen("olivia", ["update_message"]);
    await as("mia").messages.update({
      message_id: id,
      topic: "renamed",
      send_notification_to_new_thread: false,
    });
    expect((await events()).map((e) => [e.message_ids, e.flags])).toEqual([[[id], ["read"]]]);
  });

  // test_message_edit.py: test_user_topic_states_on_moving_to_topic_with_no_messages and
  // test_merging_user_topic_states (the more visible policy wins).
  it("moves followed and muted topics with the topic, merging into a topic that has messages", async () => {
    const realm = sandbox.realm;
    const g = general().streamId;
    const [mia, olivia] = [sandbox.user("mia").userId, sandbox.user("olivia").userId];
    const id = await send("old name", "x");
    await send("busy", "already here", "olivia");
    realm.setTopicPolicy(mia, g, "old name", 3); // followed
    realm.setTopicPolicy(olivia, g, "old name", 1); // muted
    realm.setTopicPolicy(olivia, g, "busy", 2); // unmuted
    const events = await listen("mia", ["user_topic"]);
    await as("mia").messages.update({
      message_id: id,
      topic: "busy",
      propagate_mode: "change_all",
      send_notification_to_new_thread: false,
    });
    expect(realm.topicPolicy(mia, g, "busy")).toBe(3);
    expect(realm.topicPolicy(mia, g, "old name")).toBe(0);
    expect(realm.topicPolicy(olivia, g, "busy")).toBe(2); // unmuted beats muted
    expect(realm.topicPolicy(olivia, g, "old name")).toBe(0);
    expect((await events()).map((e) => [e.topic_name, e.visibility_policy])).toEqual([
      ["old name", 0],
      ["busy", 3],
    ]);
  });

  it("marks a topic resolved with a notice, not a breadcrumb", async () => {
    const id = await send("bug 12", "broken");
    const events = await listen("bot", ["message"]);
    await as("mia").messages.update({
      message_id: id,
      topic: "✔ bug 12",
      propagate_mode: "change_all",
    });
    const [notice] = (await events()).map((e) => e.message as { content: string; subject: string });
    expect(notice).toMatchObject({ subject: "✔ bug 12" });
    expect(notice!.content).toContain("has marked this topic as resolved.");
    expect(
      (await failure(as("mia").messages.update({ message_id: id, topic: "✔ general chat" }))).msg,
    ).toBe("General chat cannot be marked as resolved");
  });

  it("refuses what the server refuses: DMs with topics or channels, guests moving channels, unknown channels", async () => {
    const { id: dm } = await as("mia").messages.send({
      type: "direct",
      to: [sandbox.user("olivia").userId],
      content: "psst",
    });
    expect((await failure(as("mia").messages.update({ message_id: dm, topic: "x" }))).msg).toBe(
      "Direct messages cannot have topics.",
    );
    const sandboxId = sandbox.realm.channelByName("sandbox")!.streamId;
    expect(
      (await failure(as("mia").messages.update({ message_id: dm, stream_id: sandboxId }))).msg,
    ).toBe("Direct messages cannot be moved to channels.");
    const id = await send("guests", "hello", "gus", "sandbox");
    expect(
      (await failure(as("gus").messages.update({ message_id: id, stream_id: general().streamId })))
        .msg,
    ).toBe("You don't have permission to move this message");
    // A guest may still rename a topic (everyone may, by default).
    await as("gus").messages.update({ message_id: id, topic: "guest topic" });
    expect(
      (await failure(as("mia").messages.update({ message_id: id, stream_id: 9999 }))).msg,
    ).toBe("Invalid channel ID");
  });

  // test_message_edit.py: test_move_message_to_stream_time_limit / test_edit_topic_time_limit
  // and the MOVE_MESSAGES_TIME_LIMIT_EXCEEDED case of test_move_message_with_change_all.
  it("limits moves by members to a week (moderators have none), and change_all of a partly old topic", async () => {
    const old = await send("history", "from long ago");
    clock.advance((7 * 86_400 + 21) * 1000);
    const fresh = await send("history", "today");
    const refused = await failure(as("mia").messages.update({ message_id: old, topic: "archive" }));
    expect(refused).toBeInstanceOf(MessageMoveWindowError);
    expect(refused.msg).toBe("The time limit for editing this message's topic has passed.");
    const channel = await failure(
      as("mia").messages.update({
        message_id: old,
        stream_id: sandbox.realm.channelByName("sandbox")!.streamId,
      }),
    );
    expect(channel.msg).toBe("The time limit for editing this message's channel has passed");

    const whole = await failure(
      as("mia").messages.update({
        message_id: fresh,
        topic: "archive",
        propagate_mode: "change_all",
      }),
    );
    expect(whole).toBeInstanceOf(MessageMoveWindowError);
    expect(whole).toMatchObject({
      code: "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
      msg: "You only have permission to move the 1/2 most recent messages in this topic.",
      extra: {
        first_message_id_allowed_to_move: fresh,
        total_messages_allowed_to_move: 1,
        total_messages_in_topic: 2,
      },
    });
    expect(whole as MessageMoveWindowError).toMatchObject({
      firstMovable: fresh,
      movable: 1,
      inTopic: 2,
    });
    await as("max").messages.update({
      message_id: fresh,
      topic: "archive",
      propagate_mode: "change_all",
    });
    expect((await as("mia").messages.get({ message_id: old })).message.subject).toBe("archive");
  });
});
