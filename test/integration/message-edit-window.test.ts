// The message edit window and widget edits over loopback HTTP: the realm setting, its registration fields and events, the server's refusals and the client's error classes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessageEditWindowError, WidgetEditError } from "../../src/client/index.js";
import { apiFailure, sandboxPeople } from "../helpers/sandbox-people.js";
import { ManualClock, startSandbox, type Sandbox } from "../../src/sandbox/index.js";

describe("the message edit window (message_content_edit_limit_seconds)", () => {
  let sandbox: Sandbox;
  let clock: ManualClock;
  const people = sandboxPeople(() => sandbox);
  const as = people.as;
  const send = async (content: string, handle = "mia", topic = "edits"): Promise<number> =>
    (await as(handle).messages.send({ type: "channel", to: "general", topic, content })).id;
  const failure = apiFailure;

  beforeAll(async () => {
    clock = new ManualClock(Date.parse("2026-03-02T09:00:00Z"));
    sandbox = await startSandbox({ clock });
  });
  afterAll(async () => {
    await people.close();
    await sandbox.close();
  });

  it("is announced in the registration as the server's defaults", async () => {
    const reg = await as("mia").events.register({ fetch_event_types: ["realm"] });
    expect(reg).toMatchObject({
      realm_allow_message_editing: true,
      realm_message_content_edit_limit_seconds: 600,
      realm_message_content_delete_limit_seconds: 600,
      realm_move_messages_within_stream_limit_seconds: 7 * 86_400,
      realm_move_messages_between_streams_limit_seconds: 7 * 86_400,
    });
    expect(typeof reg.realm_can_move_messages_between_channels_group).toBe("number");
  });

  // test_message_edit.py: test_edit_message_content_limit (600 s plus the server's 20 s of grace).
  it("lets the sender edit until the limit and its 20 s grace pass, then refuses", async () => {
    const id = await send("first");
    clock.advance(620_000);
    await as("mia").messages.update({ message_id: id, content: "second" });
    clock.advance(1_000);
    const refused = await failure(as("mia").messages.update({ message_id: id, content: "third" }));
    expect(refused).toBeInstanceOf(MessageEditWindowError);
    expect(refused).toMatchObject({
      code: "BAD_REQUEST",
      status: 400,
      msg: "The time limit for editing this message has passed",
      name: "MessageEditWindowError",
    });
    // The window limits content only: the topic still moves (its own limit is a week).
    await as("mia").messages.update({ message_id: id, topic: "renamed" });
    const { message } = await as("mia").messages.get({ message_id: id, apply_markdown: false });
    expect(message).toMatchObject({ content: "second", subject: "renamed" });
  });

  // test_message_edit.py: test_edit_message_no_permission comes first: someone else's message is refused for that.
  it("refuses someone else's content edit for permission, whatever its age", async () => {
    const id = await send("mine");
    const refused = await failure(as("olivia").messages.update({ message_id: id, content: "x" }));
    expect(refused.msg).toBe("You don't have permission to edit this message");
    expect(refused).not.toBeInstanceOf(MessageEditWindowError);
  });

  it("changes through PATCH /realm (administrators), with realm update_dict events; unlimited is null", async () => {
    const queue = await as("bot").events.register({ event_types: ["realm"] });
    const refused = await failure(
      as("mia").realm.update({ message_content_edit_limit_seconds: 3600 }),
    );
    expect(refused.msg).toBe("Must be an organization administrator");

    await as("adam").realm.update({ message_content_edit_limit_seconds: 3600 });
    await as("adam").realm.update({ message_content_edit_limit_seconds: "unlimited" });
    const { events } = await as("bot").events.get({
      queue_id: queue.queue_id!,
      last_event_id: -1,
      dont_block: true,
    });
    expect(events.map(({ type, op, property, data }) => ({ type, op, property, data }))).toEqual([
      {
        type: "realm",
        op: "update_dict",
        property: "default",
        data: { message_content_edit_limit_seconds: 3600 },
      },
      {
        type: "realm",
        op: "update_dict",
        property: "default",
        data: { message_content_edit_limit_seconds: null },
      },
    ]);
    const reg = await as("mia").events.register({ fetch_event_types: ["realm"] });
    expect(reg.realm_message_content_edit_limit_seconds).toBeNull();

    // No limit: a day-old message is still edited.
    const id = await send("old news");
    clock.advance(86_400_000);
    await as("mia").messages.update({ message_id: id, content: "still editable" });

    await as("adam").realm.update({ allow_message_editing: false });
    expect((await failure(as("mia").messages.update({ message_id: id, content: "no" }))).msg).toBe(
      "Your organization has turned off message editing",
    );
    await as("adam").realm.update({
      allow_message_editing: true,
      message_content_edit_limit_seconds: 600,
    });
  });

  // test_message_edit.py: test_edit_submessage ("Widgets cannot be edited.").
  it("never edits the content of a message carrying a widget, however young", async () => {
    const poll = await send("/poll Lunch?\npizza\nsoup");
    const refused = await failure(
      as("mia").messages.update({ message_id: poll, content: "/poll Dinner?" }),
    );
    expect(refused).toBeInstanceOf(WidgetEditError);
    expect(refused).toMatchObject({ code: "BAD_REQUEST", msg: "Widgets cannot be edited." });

    const zform = await as("bot").messages.send({
      type: "channel",
      to: "general",
      topic: "edits",
      content: "Pick one",
      widget_content: {
        widget_type: "zform",
        extra_data: {
          type: "choices",
          heading: "Next?",
          choices: [{ short_name: "A", long_name: "Again", reply: "again" }],
        },
      },
    });
    expect(
      await failure(as("bot").messages.update({ message_id: zform.id, content: "changed" })),
    ).toBeInstanceOf(WidgetEditError);
    // Its topic is not its content: a widget message still moves.
    await as("mia").messages.update({ message_id: poll, topic: "lunch" });
  });

  it("refuses content edits with propagate_mode, and content with a channel change", async () => {
    const id = await send("body");
    expect(
      (
        await failure(
          as("mia").messages.update({ message_id: id, content: "x", propagate_mode: "change_all" }),
        )
      ).msg,
    ).toBe("Invalid propagate_mode without topic edit");
    const other = sandbox.realm.channelByName("sandbox")!.streamId;
    expect(
      (await failure(as("mia").messages.update({ message_id: id, content: "x", stream_id: other })))
        .msg,
    ).toBe("Cannot change message content while changing channel");
    expect((await failure(as("mia").messages.update({ message_id: id }))).msg).toBe(
      "Nothing to change",
    );
    // The same topic again is no change either.
    expect((await failure(as("mia").messages.update({ message_id: id, topic: "edits" }))).msg).toBe(
      "Nothing to change",
    );
  });
});
