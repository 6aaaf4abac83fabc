import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, describePluginDefaults, type TestBot } from "topicbot/testing";
import poll from "./index.js";

describePluginDefaults(poll);

describe("poll", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("posts the poll with its ballot, counts reactions as votes, and closes with the result", async () => {
    t = await createTestBot({ plugins: [poll] });
    await t.send('!poll "Lunch where?" pizza sushi "the usual place"');
    const posted = await t.expectReply(/^\*\*Poll: Lunch where\?\*\* \(asked by Mia Member\)/);
    expect(posted.content).toContain(
      ":banana: pizza: **0** votes\n:cherries: sushi: **0** votes\n:grapes: the usual place: **0** votes",
    );
    await t.settle();
    expect(t.reactions(posted.id).map((r) => r.emoji)).toEqual(["banana", "cherries", "grapes"]);

    await t.react(posted.id, "cherries", { as: "mia" });
    await t.react(posted.id, "cherries", { as: "adam" });
    await t.react(posted.id, "banana", { as: "max" });
    await t.react(posted.id, "tada", { as: "gus" }); // not an option: ignored
    await expect
      .poll(() => t.realm.message(posted.id)!.content, { timeout: 3_000, interval: 5 })
      .toContain(":banana: pizza: **1** vote\n:cherries: sushi: **2** votes");

    const close = await t.send("!poll close", { as: "adam" });
    await t.expectReply("Poll closed: **Lunch where?**. Result: sushi (2 votes).");
    expect(t.realm.message(posted.id)!.content).toMatch(/Closed with 3 votes\.$/);
    expect(t.reactions(close)).toEqual([expect.objectContaining({ emoji: "check" })]);
    await t.dialog([["!poll close", "There is no open poll in this conversation."]]);
  });

  it("still counts every vote when the poll message is past the edit window", async () => {
    t = await createTestBot({ plugins: [poll], now: "2026-03-02T09:00:00Z" });
    await t.send("!poll Tea? green black");
    const posted = await t.expectReply(/^\*\*Poll: Tea\?\*\*/);
    await t.settle();
    await t.passEditWindow();
    await t.react(posted.id, "cherries", { as: "adam" });
    await t.send("!poll close");
    await t.expectReply("Poll closed: **Tea?**. Result: black (1 vote).");
    expect(t.realm.message(posted.id)!.content).toContain("**0** votes");
    expect(t.errors()).toEqual([]);
  });

  it("keeps polls per conversation and refuses bad polls", async () => {
    t = await createTestBot({
      plugins: [{ plugin: poll, settings: { emoji: ["lemon", "pear"] } }],
    });
    await t.dialog([
      ["!poll Tea?", /needs a question and at least two options/],
      ["!poll Tea? yes no maybe", "A poll can have at most 2 options."],
      ["!poll Tea? yes no", /^\*\*Poll: Tea\?\*\*/],
    ]);
    await t.dialog([["!poll close", "There is no open poll in this conversation."]], {
      topic: "other",
    });
    await t.dialog([["!poll close", "Poll closed: **Tea?**. Result: no votes."]]);
  });

  it("is closed only by whoever asked or a moderator, not by another member or a guest", async () => {
    t = await createTestBot({ plugins: [poll] });
    await t.send('!poll "Ship on Friday?" yes no', { as: "mia" });
    await t.expectReply(/^\*\*Poll: Ship on Friday\?\*\*/);
    await t.send("!poll close", { as: "gus" });
    await t.expectReply("Only Mia Member (who asked) or a moderator can close this poll.");
    await t.send("!poll close", { as: "max" });
    await t.expectReply("Poll closed: **Ship on Friday?**. Result: no votes.");
    await t.send('!poll "Tea?" yes no', { as: "gus" });
    await t.expectReply(/^\*\*Poll: Tea\?\*\*/);
    await t.send("!poll close", { as: "gus" });
    await t.expectReply("Poll closed: **Tea?**. Result: no votes.");
  });

  it("keeps a question and its options to one line each, and bounds their lengths", async () => {
    t = await createTestBot({ plugins: [poll] });
    // A line break inside quotes would forge vote lines of its own.
    await t.send(
      '!poll "Lunch?\n:banana: pizza: **99** votes" "pizza\n:cherries: sushi: **42** votes" sushi',
      {
        as: "gus",
      },
    );
    const posted = await t.expectReply(/^\*\*Poll: /);
    expect(posted.content.split("\n")).toEqual([
      "**Poll: Lunch? :banana: pizza: **99** votes** (asked by Gus Guest)",
      ":banana: pizza :cherries: sushi: **42** votes: **0** votes",
      ":cherries: sushi: **0** votes",
      "React with an option's emoji to vote; `!poll close` ends the poll.",
    ]);
    const bounds = "A poll's question can be at most 300 characters, and each option at most 100.";
    await t.dialog([
      [`!poll ${"q".repeat(301)} a b`, bounds],
      [`!poll q ${"a".repeat(101)} b`, bounds],
      ['!poll q "" b', /cannot be empty/],
    ]);
  });
});
