// The harness's verbs for widgets, moves and the edit window: t.vote, t.strike, t.move, t.renameTopic, t.passEditWindow, over loopback HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { definePlugin } from "topicbot";
import { MessageEditWindowError, WidgetEditError } from "topicbot/client";
import { createTestBot, type TestBot } from "topicbot/testing";
import { until } from "../helpers/bot.js";

const seen: { type: string; [key: string]: unknown }[] = [];
const watcher = definePlugin({
  name: "watcher",
  setup(bot) {
    bot.on("submessage", (event) => void seen.push(event));
    bot.on("update_message", (event) => void seen.push(event));
    bot.command("survey", { description: "Post a poll" }, (ctx) =>
      ctx.reply("/poll Lunch?\npizza\nsoup"),
    );
  },
});

describe("harness verbs for submessages, moves and edits", () => {
  let t: TestBot;
  beforeAll(async () => {
    t = await createTestBot({ plugins: [watcher], now: "2026-03-02T09:00:00Z" });
  });
  afterAll(() => t?.close());

  it("votes in the bot's poll and strikes a task as people do in the web app", async () => {
    await t.send("!survey");
    const poll = await t.reply();
    await t.vote(poll.id, "soup", { as: "olivia" });
    await t.vote(poll.id, 0);
    await t.vote(poll.id, 0, { vote: -1 });
    await until(() => seen.filter((e) => e.type === "submessage").length === 3, "three votes");
    expect(
      seen
        .filter((e) => e.type === "submessage")
        .map((e) => [e.sender_id, JSON.parse(e.content as string)]),
    ).toEqual([
      [t.user("olivia").userId, { type: "vote", key: "canned,1", vote: 1 }],
      [t.user("mia").userId, { type: "vote", key: "canned,0", vote: 1 }],
      [t.user("mia").userId, { type: "vote", key: "canned,0", vote: -1 }],
    ]);
    await expect(t.vote(poll.id, "salad")).rejects.toThrow(
      'no poll option "salad"; there are: "pizza", "soup"',
    );

    const todo = await t.send("/todo Chores\ndishes: tonight\nlaundry", { as: "olivia" });
    await t.strike(todo, "laundry");
    await until(() => seen.filter((e) => e.type === "submessage").length === 4, "a strike");
    expect(JSON.parse(seen.at(-1)!.content as string)).toEqual({ type: "strike", key: "1,canned" });
    await expect(t.vote(todo, 0)).rejects.toThrow("is a todo widget, not a poll");
    // The bot's poll is a widget: the bot may never rewrite it.
    await expect(
      t.clientFor("bot").messages.update({ message_id: poll.id, content: "closed" }),
    ).rejects.toBeInstanceOf(WidgetEditError);
  });

  it("renames a topic as a person; the bot gets the update_message event", async () => {
    const first = await t.send("one", { topic: "draft" });
    await t.send("two", { topic: "draft", as: "olivia" });
    seen.length = 0;
    await t.renameTopic("general", "draft", "final", { as: "max" });
    await until(() => seen.some((e) => e.type === "update_message"), "the rename");
    expect(seen.find((e) => e.type === "update_message")).toMatchObject({
      orig_subject: "draft",
      subject: "final",
      propagate_mode: "change_all",
    });
    await t.move(first, { channel: "archive", propagate: "change_one", notifyNew: false });
    expect(t.realm.message(first)!.streamId).toBe(t.realm.channelByName("archive")!.streamId);
  });

  it("passes the edit window on the fake clock", async () => {
    const id = await t.send("typo");
    await t.edit(id, "fixed");
    await t.passEditWindow();
    await expect(t.edit(id, "too late")).rejects.toBeInstanceOf(MessageEditWindowError);
  });
});
