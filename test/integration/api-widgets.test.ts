// Widgets on POST /messages: widget_content checked as the server checks it, /poll and /todo content, delivered as submessages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type ApiClient } from "../../src/client/index.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

const zform = {
  widget_type: "zform",
  extra_data: {
    type: "choices",
    heading: "What next?",
    choices: [
      { short_name: "A", long_name: "Play again", reply: "again" },
      { short_name: "B", long_name: "Stop", reply: "stop" },
    ],
  },
};

describe("widgets", () => {
  let sandbox: Sandbox;
  let bot: ApiClient;
  beforeAll(async () => {
    sandbox = await startSandbox();
    bot = createClient({ site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey });
  });
  afterAll(async () => {
    await bot.close();
    await sandbox.close();
  });

  const submessages = async (id: number) =>
    (await bot.messages.get({ message_id: id })).message.submessages;

  it("stores widget_content (object or JSON text) and delivers it as a widget submessage", async () => {
    const bot_id = sandbox.bot.userId;
    for (const widget_content of [zform, JSON.stringify(zform)]) {
      const { id } = await bot.messages.send({
        type: "channel",
        to: "general",
        topic: "quiz",
        content: "Pick one",
        widget_content,
      });
      const [sub, ...rest] = await submessages(id);
      expect(rest).toEqual([]);
      expect(sub).toMatchObject({ message_id: id, sender_id: bot_id, msg_type: "widget" });
      expect(JSON.parse(sub!.content)).toEqual(zform);
    }
  });

  it("refuses widget_content the server refuses, with its messages", async () => {
    for (const [widget_content, msg] of [
      ["{not json", "Widgets: API programmer sent invalid JSON content"],
      [{ widget_type: "poll", extra_data: {} }, "Widgets: unknown widget type: poll"],
      [{ extra_data: {} }, "Widgets: widget_type is not in widget_content"],
      [{ widget_type: "zform", extra_data: { type: "quiz" } }, "Widgets: unknown zform type: quiz"],
    ] as const) {
      await expect(
        bot.messages.send({
          type: "channel",
          to: "general",
          topic: "quiz",
          content: "x",
          widget_content,
        }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST", msg });
    }
  });

  it("makes polls and todo lists from /poll and /todo content, and nothing from plain content", async () => {
    const send = (content: string) =>
      bot.messages.send({ type: "channel", to: "general", topic: "widgets", content });
    const poll = await send("/poll Lunch?\n- pizza\n* soup\n\nsalad");
    expect(JSON.parse((await submessages(poll.id))[0]!.content)).toEqual({
      widget_type: "poll",
      extra_data: { question: "Lunch?", options: ["pizza", "soup", "salad"] },
    });
    const todo = await send("/todo Chores\n- dishes: before 6\nlaundry");
    expect(JSON.parse((await submessages(todo.id))[0]!.content)).toEqual({
      widget_type: "todo",
      extra_data: {
        task_list_title: "Chores",
        tasks: [
          { task: "dishes", desc: "before 6" },
          { task: "laundry", desc: "" },
        ],
      },
    });
    expect(await submessages((await send("/polling is not a widget")).id)).toEqual([]);
  });
});
