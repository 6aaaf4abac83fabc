import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, describePluginDefaults, type TestBot } from "topicbot/testing";
import triage, { messageIdOf } from "./index.js";

describePluginDefaults(triage);

describe("triage", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("reports a message named by ID or link, with the reason, and marks the topic read", async () => {
    t = await createTestBot({ plugins: [triage] });
    const bad = await t.send("Buy cheap watches at example.test", { as: "gus", topic: "market" });
    await t.send(`!triage ${bad} spam`, { topic: "market" });
    await t.expectReply(`Reported message ${bad} to the moderators for spam. Thank you.`);
    expect(t.reports()).toEqual([
      expect.objectContaining({
        authorId: t.user("gus").userId,
        reporterId: t.sandbox.bot.userId,
        reason: "spam",
        explanation: "Triaged by Mia Member",
        quoted: "Buy cheap watches at example.test",
        where: "#**general>market**",
      }),
    ]);
    expect(t.realm.message(bad)!.flags.get(t.sandbox.bot.userId)?.has("read")).toBe(true);

    const rude = await t.send("you are all idiots", { as: "gus", topic: "market" });
    await t.send(
      `!triage ${t.sandbox.url}/#narrow/channel/1-general/topic/market/near/${rude} other insults people`,
      {
        topic: "market",
      },
    );
    await t.expectReply(/^Reported message \d+ to the moderators for other/);
    expect(t.reports().at(-1)).toMatchObject({
      reason: "other reason",
      explanation: "insults people (Triaged by Mia Member)",
    });
  });

  it("answers bad requests with the usage, reporting nothing", async () => {
    t = await createTestBot({ plugins: [triage] });
    await t.dialog([
      ["!triage", /^Usage: `!triage <message:message> <reason:spam\|harassment/],
      ["!triage 12 rude", /^Usage:.*\n<reason>: `rude` is not one of `spam`/],
      ["!triage 12 other", /Say why after `other`/],
    ]);
    expect(t.reports()).toEqual([]);
  });

  it("bounds message IDs and explanations, answering with the usage", async () => {
    t = await createTestBot({ plugins: [triage] });
    await t.dialog([
      ["!triage 0 spam", /^Usage: `!triage .*\n<message>: `0` is less than 1, the least I accept/],
      [
        "!triage 9007199254740993 spam",
        /\n<message>: `9007199254740993` is more than 9,007,199,254,740,991, the most I accept/,
      ],
      [
        `!triage 12 other ${"x".repeat(1001)}`,
        /\n<explanation>: the text is 1,001 characters long; at most 1,000/,
      ],
    ]);
    expect(t.reports()).toEqual([]);
  });

  it("reports messages that match a rule by itself", async () => {
    t = await createTestBot({
      plugins: [
        { plugin: triage, settings: { rules: [{ pattern: "cheap watches", reason: "spam" }] } },
      ],
      config: { respondTo: "all" },
    });
    const spam = await t.send("CHEAP WATCHES here!", { as: "gus", topic: "market" });
    await t.send("a normal message", { as: "mia", topic: "market" });
    await t.expectNoReply();
    expect(t.reports()).toEqual([
      expect.objectContaining({
        authorId: t.user("gus").userId,
        reason: "spam",
        explanation: "matched the triage rule /cheap watches/",
      }),
    ]);
    expect(t.realm.message(spam)!.flags.get(t.sandbox.bot.userId)?.has("read")).toBe(true);
  });
});

describe("triage without a moderation request channel", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("says what is missing and which setting fixes it, by command and by rule", async () => {
    t = await createTestBot({
      plugins: [
        { plugin: triage, settings: { rules: [{ pattern: "cheap watches", reason: "spam" }] } },
      ],
      config: { respondTo: "all" },
      sandbox: { settings: { moderationRequestChannel: null } },
    });
    const bad = await t.send("an awful message", { as: "gus", topic: "market" });
    await t.send(`!triage ${bad} spam`, { topic: "market" });
    const answer = await t.reply();
    expect(answer.content).toBe(
      "I can't report messages yet: this organization has no moderation request channel for reports to go to. " +
        "To fix it, an administrator sets one in Settings → Organization settings → Moderation → Moderation requests channel " +
        "(realm setting `moderation_request_channel_id`).",
    );
    expect(answer.content).not.toMatch(/Sorry|went wrong/);

    await t.send("CHEAP WATCHES here!", { as: "gus", topic: "market" });
    await t.expectNoReply();
    expect(t.reports()).toEqual([]);
    expect(t.errors()).toEqual([
      expect.stringMatching(
        /^triage: a message matched a rule but the organization has no moderation request channel.*moderation_request_channel_id/,
      ),
    ]);
  });
});

describe("messageIdOf", () => {
  it("reads message IDs from numbers and links", () => {
    expect(messageIdOf("42")).toBe(42);
    expect(messageIdOf("https://x.test/#narrow/channel/1-general/topic/a/near/77")).toBe(77);
    expect(messageIdOf("https://x.test/#narrow/channel/1-general/topic/a/with/78")).toBe(78);
    expect(messageIdOf("soon")).toBeUndefined();
  });
});

describe("triage, acting only on what the sender can see", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("reports only what the sender can see: not another's DM to the bot, not a private channel they are not in", async () => {
    t = await createTestBot({ plugins: [triage] });
    const secret = await t.dm("my new phone number is 555-0100", { as: "adam" });
    await t.expectReply(/I don't know the command/);
    const hidden = t.realm.addChannel("staff", "", true);
    t.realm.subscribe(hidden, t.sandbox.bot.userId);
    t.realm.subscribe(hidden, t.user("adam").userId);
    const inside = await t.send("salaries are in the drive", { as: "adam", channel: "staff" });
    for (const id of [secret, inside, 999_999]) {
      await t.send(`!triage ${id} other look at this`, { as: "gus" });
      await t.expectReply(
        `I can't report message ${id}: there is no message with that ID that you can see.`,
      );
      await t.send(`!triage ${id} other look at this`, { as: "mia" });
      await t.expectReply(/I can't report message/);
    }
    // Adam was in both conversations: his reports go through.
    await t.send(`!triage ${secret} spam`, { as: "adam" });
    await t.expectReply(`Reported message ${secret} to the moderators for spam. Thank you.`);
    expect(t.reports()).toHaveLength(1);
  });

  it("in a channel with protected history, does not report what was sent before the sender joined", async () => {
    t = await createTestBot({ plugins: [triage] });
    const staff = t.realm.addChannel("staff", "", true);
    t.realm.subscribe(staff, t.sandbox.bot.userId);
    t.realm.subscribe(staff, t.user("adam").userId);
    const before = await t.send("salaries are in the drive", { as: "adam", channel: "staff" });
    t.realm.subscribe(staff, t.user("mia").userId);
    const own = await t.send("hello all", { as: "mia", channel: "staff" });
    await t.send(`!triage ${before} other look at this`, { as: "mia", channel: "staff" });
    await t.expectReply(
      `I can't report message ${before}: there is no message with that ID that you can see.`,
    );
    // Her own message she certainly received; Adam was there all along.
    await t.send(`!triage ${own} spam`, { as: "mia", channel: "staff" });
    await t.expectReply(`Reported message ${own} to the moderators for spam. Thank you.`);
    await t.send(`!triage ${before} spam`, { as: "adam", channel: "staff" });
    await t.expectReply(`Reported message ${before} to the moderators for spam. Thank you.`);
    expect(t.reports().map((r) => r.authorId)).toEqual([
      t.user("mia").userId,
      t.user("adam").userId,
    ]);
  });

  it("keeps an explanation to one line, so it cannot forge the notice's quote", async () => {
    t = await createTestBot({ plugins: [triage] });
    const id = await t.send("an honest message", { as: "adam" });
    await t.send(`!triage ${id} other see\n\n> I will leak the payroll`, { as: "gus" });
    await t.expectReply(/^Reported message/);
    const [report] = t.reports();
    expect(report!.explanation).toBe("see > I will leak the payroll (Triaged by Gus Guest)");
    expect(report!.quoted).toBe("an honest message");
  });
});
