// POST /submessage and `submessage` events over loopback HTTP, as test_submessage.py has them: the first-sender rule, JSON content, access, poll and todo data.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  pollOptionKey,
  submessageContent,
  todoTaskKey,
  type ApiClient,
} from "../../src/client/index.js";
import { apiFailure, sandboxPeople } from "../helpers/sandbox-people.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/index.js";

describe("POST /submessage", () => {
  let sandbox: Sandbox;
  const people = sandboxPeople(() => sandbox);
  const as = people.as;
  const send = async (content: string, handle = "mia", topic = "widgets"): Promise<number> =>
    (await as(handle).messages.send({ type: "channel", to: "general", topic, content })).id;
  const refusal = async (p: Promise<unknown>): Promise<string> => {
    const error = await apiFailure(p);
    expect(error.code).toBe("BAD_REQUEST");
    return error.msg;
  };
  const drain = async (client: ApiClient, queueId: string) =>
    (await client.events.get({ queue_id: queueId, last_event_id: -1, dont_block: true })).events;

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(async () => {
    await people.close();
    await sandbox.close();
  });

  // test_submessage.py: test_endpoint_errors.
  it("refuses content that is not JSON and messages the requester cannot see", async () => {
    const id = await send("plain");
    expect(
      await refusal(
        as("mia").messages.addSubmessage({
          message_id: id,
          msg_type: "whatever",
          content: "not json",
        }),
      ),
    ).toBe("Invalid json for submessage");
    const { id: private_ } = await as("olivia").messages.send({
      type: "direct",
      to: [sandbox.user("olivia").userId],
      content: "note to self",
    });
    expect(
      await refusal(
        as("mia").messages.addSubmessage({ message_id: private_, msg_type: "x", content: "{}" }),
      ),
    ).toBe("Invalid message(s)");
  });

  // test_submessage.py: test_original_sender_enforced.
  it("takes the first submessage only from the message's sender, then from anyone who sees it", async () => {
    const id = await send("a plain message", "olivia");
    const payload = { message_id: id, msg_type: "whatever", content: "{}" };
    expect(await refusal(as("mia").messages.addSubmessage(payload))).toBe(
      "You cannot attach a submessage to this message.",
    );
    await as("olivia").messages.addSubmessage({ ...payload, content: '"whatever"' });
    await as("mia").messages.addSubmessage(payload);
  });

  // test_submessage.py: test_endpoint_success and test_fetch_message_containing_submessages.
  it("sends a submessage event to everyone who has the message and lists it in the message", async () => {
    const id = await send("a form");
    const content = '{"name": "alice", "salary": 20}';
    const queues = {
      mia: (await as("mia").events.register({ event_types: ["submessage"] })).queue_id!,
      olivia: (await as("olivia").events.register({ event_types: ["submessage"] })).queue_id!,
    };
    await as("mia").messages.addSubmessage({ message_id: id, msg_type: "whatever", content });
    for (const [handle, queueId] of Object.entries(queues)) {
      const events = await drain(as(handle), queueId);
      expect(events).toHaveLength(1);
      expect(events[0]).toEqual({
        id: 0,
        type: "submessage",
        message_id: id,
        submessage_id: expect.any(Number),
        sender_id: sandbox.user("mia").userId,
        msg_type: "whatever",
        content,
      });
    }
    const { message } = await as("olivia").messages.get({ message_id: id });
    expect(message.submessages).toEqual([
      {
        id: expect.any(Number),
        message_id: id,
        sender_id: sandbox.user("mia").userId,
        msg_type: "whatever",
        content,
      },
    ]);
    const listed = await as("olivia").messages.list({
      anchor: id,
      num_before: 0,
      num_after: 0,
    });
    expect(listed.messages[0]!.submessages).toHaveLength(1);
  });

  // test_submessage.py: the poll data checks (validate_poll_data).
  it("checks poll votes, options and questions as the server does", async () => {
    const poll = await send("/poll Lunch?\npizza\nsoup", "olivia");
    const post = (handle: string, data: unknown) =>
      as(handle).messages.addSubmessage({
        message_id: poll,
        msg_type: "widget",
        content: JSON.stringify(data),
      });
    await post("mia", { type: "vote", key: pollOptionKey(0), vote: 1 });
    await post("mia", { type: "vote", key: pollOptionKey(0), vote: -1 });
    await post("mia", { type: "new_option", option: "salad", idx: 1 });
    for (const [data, msg] of [
      [{ type: "vote", key: "canned,0", vote: 2 }, 'Invalid poll data["vote"]'],
      [{ type: "vote", key: 3, vote: 1 }, 'poll data["key"] is not a string'],
      [{ type: "vote", vote: 1 }, "key key is missing from poll data"],
      [{ type: "vote", key: "canned,0", vote: 1, extra: true }, "Unexpected arguments: extra"],
      [{ type: "new_option", option: "x", idx: 1001 }, 'poll data["idx"] is too large'],
      [
        { type: "question", question: "Dinner?" },
        "You can't edit a question unless you are the author.",
      ],
      [{ type: "shout" }, "Unknown type for poll data: shout"],
      [["vote"], "poll data is not a dict"],
    ] as const)
      expect(await refusal(post("mia", data))).toBe(msg);
    await post("olivia", { type: "question", question: "Dinner?" });
  });

  it("checks todo data: tasks, strikes, and the title from its author only", async () => {
    const todo = await send("/todo Chores\ndishes: tonight\nlaundry", "olivia");
    const post = (handle: string, content: string) =>
      as(handle).messages.addSubmessage({ message_id: todo, msg_type: "widget", content });
    await post("mia", submessageContent({ type: "strike", key: todoTaskKey(1) }));
    await post(
      "mia",
      submessageContent({ type: "new_task", key: 0, task: "mop", desc: "", completed: false }),
    );
    expect(await refusal(post("mia", '{"type": "new_task_list_title", "title": "Mine"}'))).toBe(
      "You can't edit the task list title unless you are the author.",
    );
    expect(await refusal(post("mia", '{"type": "strike"}'))).toBe(
      "key key is missing from todo data",
    );
    expect(
      await refusal(
        post("mia", '{"type": "new_task", "key": 1, "task": "t", "desc": "", "completed": "no"}'),
      ),
    ).toBe('todo data["completed"] is not a boolean');
  });

  // test_events.py: narrowed queues (the server's accepts_event narrows only `message` events).
  it("delivers submessage and reaction events to queues registered with a narrow elsewhere", async () => {
    const poll = await send("/poll Tea?\ngreen\nblack", "mia", "drinks");
    const { queue_id } = await as("olivia").events.register({
      event_types: ["message", "submessage", "reaction"],
      narrow: [["topic", "somewhere else"]],
    });
    await as("olivia").messages.addSubmessage({
      message_id: poll,
      msg_type: "widget",
      content: submessageContent({ type: "vote", key: pollOptionKey(1), vote: 1 }),
    });
    await as("mia").messages.addReaction({ message_id: poll, emoji_name: "tada" });
    await send("not in the narrow", "mia", "drinks");
    const events = await drain(as("olivia"), queue_id!);
    expect(events.map((e) => e.type)).toEqual(["submessage", "reaction"]);
  });

  it("gives no event to users who never received the message, though they may read it", async () => {
    const quiet = sandbox.realm.addChannel("quiet");
    sandbox.realm.subscribe(quiet, sandbox.user("mia").userId);
    const { queue_id } = await as("olivia").events.register({ event_types: ["submessage"] });
    const { id } = await as("mia").messages.send({
      type: "channel",
      to: "quiet",
      topic: "alone",
      content: "/poll Where?\nhere",
    });
    await as("mia").messages.addSubmessage({
      message_id: id,
      msg_type: "widget",
      content: submessageContent({ type: "vote", key: pollOptionKey(0), vote: 1 }),
    });
    expect(await drain(as("olivia"), queue_id!)).toEqual([]);
    const { message } = await as("olivia").messages.get({ message_id: id });
    expect(message.submessages).toHaveLength(2);
  });
});
