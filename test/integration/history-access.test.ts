// ctx.history reads for the sender only what they could read: a new member of a protected-history channel gets no earlier messages.
import { afterEach, describe, expect, it } from "vitest";
import { definePlugin } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";

const recall = definePlugin({
  name: "recall",
  description: "Repeats the topic's history, as a model would be given it.",
  setup(bot) {
    bot.command("recall", { description: "The topic so far" }, async (ctx) => {
      const turns = await ctx.history({ limit: 20 });
      await ctx.reply(turns.map((t) => t.text).join(" | ") || "(nothing)");
    });
  },
});

describe("ctx.history and protected history", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("gives a newer member only their own messages; a channel that shares its history, all", async () => {
    t = await createTestBot({ plugins: [recall] });
    const staff = t.realm.addChannel("staff", "", true);
    const ops = t.realm.addChannel("ops", "", true, true);
    for (const channel of [staff, ops])
      for (const who of [t.sandbox.bot.userId, t.user("adam").userId])
        t.realm.subscribe(channel, who);
    await t.send("the payroll password is hunter2", { as: "adam", channel: "staff" });
    await t.send("ops secret", { as: "adam", channel: "ops" });
    t.realm.subscribe(staff, t.user("mia").userId);
    t.realm.subscribe(ops, t.user("mia").userId);
    await t.send("hello", { as: "mia", channel: "staff" });
    await t.send("!recall", { as: "mia", channel: "staff" });
    expect((await t.expectReply(/./)).content).toBe("hello");
    await t.send("!recall", { as: "mia", channel: "ops" });
    expect((await t.expectReply(/./)).content).toBe("ops secret");
    // In a public channel, everything.
    await t.send("lunch?", { as: "adam" });
    await t.send("!recall", { as: "mia" });
    expect((await t.expectReply(/./)).content).toBe("lunch?");
  });
});
