import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, describePluginDefaults, type TestBot } from "topicbot/testing";
import remind from "./index.js";
import { parseReminder } from "./parse.js";

describePluginDefaults(remind);

// Monday 3 March 2025, 08:00 UTC.
const START = "2025-03-03T08:00:00Z";

/** Takes Gus the guest out of every channel (so he shares none with anyone); returns his ID. */
function guestInNoChannel(t: TestBot): number {
  const gus = t.user("gus").userId;
  for (const channel of t.realm.channels.values()) channel.subscribers.delete(gus);
  return gus;
}

describe("remind", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("reminds the sender in the same topic when the time comes", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    await t.dialog([
      [
        "!remind me in 2 hours to stretch",
        "I'll remind you here <time:2025-03-03T10:00:00.000Z>: stretch",
      ],
    ]);
    await t.clock.advance("119m");
    await t.expectNoReply();
    await t.clock.advance("1m");
    expect(await t.expectReply(/^@\*\*Mia Member\|\d+\*\* Reminder: stretch$/)).toMatchObject({
      channel: "general",
      topic: "test",
    });
  });

  it("reads wall times in the sender's profile time zone", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    await t.createUser({ handle: "lea", fullName: "Léa", timezone: "Europe/Paris" });
    await t.dm("remind me tomorrow 9:00 water the plants", { as: "lea" });
    await t.expectReply("I'll remind you <time:2025-03-04T08:00:00.000Z>: water the plants");
    expect(t.scheduled()).toEqual([
      expect.objectContaining({
        type: "direct",
        content: "Reminder: water the plants",
        at: new Date("2025-03-04T08:00:00Z"),
      }),
    ]);
  });

  it("names the user the server rendered the mention as, whatever the name's case and HTML", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    const tom = await t.createUser({ handle: "tom", fullName: "Tom & Jerry <3" });
    // `&` and `<` come back from the server as HTML entities (`>` is refused in names, as the server refuses it).
    await t.send("!remind @**tom & jerry <3** in 5 minutes to share");
    await t.expectReply(
      `I'll remind @_**Tom & Jerry <3|${tom.userId}** <time:2025-03-03T08:05:00.000Z>: share`,
    );
    await t.clock.advance("5m");
    expect(await t.expectReply("Reminder from **Mia Member**: share")).toMatchObject({
      type: "direct",
      userIds: [tom.userId, t.sandbox.bot.userId].sort((a, b) => a - b),
    });
  });

  it("reminds another user by direct message and a topic by name", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    await t.send("!remind @**Adam Admin** in 10 minutes to review the PR");
    await t.expectReply(
      /^I'll remind @_\*\*Adam Admin\|\d+\*\* <time:2025-03-03T08:10:00.000Z>: review the PR$/,
    );
    await t.send("!remind #**sandbox>standup** tomorrow 9:00 standup in 5");
    await t.expectReply(
      /^I'll remind #\*\*sandbox>standup\*\* <time:2025-03-04T09:00:00.000Z>: standup in 5$/,
    );
    await t.clock.advance("10m");
    expect(await t.expectReply("Reminder from **Mia Member**: review the PR")).toMatchObject({
      type: "direct",
      userIds: [t.user("adam").userId, t.sandbox.bot.userId],
    });
    await t.clock.set("2025-03-04T09:00:00Z");
    expect(await t.expectReply("Reminder from **Mia Member**: standup in 5")).toMatchObject({
      channel: "sandbox",
      topic: "standup",
    });
  });

  it("lists the sender's reminders still to come", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    await t.dialog([
      ["!reminders", "You have no reminders to come."],
      ["!remind me in 1h tea", /tea$/],
      ["!remind me in 30m call", /call$/],
      [
        "!reminders",
        "Your reminders to come:\n- <time:2025-03-03T08:30:00.000Z> for you here: call\n- <time:2025-03-03T09:00:00.000Z> for you here: tea",
      ],
    ]);
  });

  it("explains what it could not read", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    await t.dialog([
      ["!remind", /^Tell me whom to remind, when, and what\.\nUsage: `remind/],
      ["!remind bob in 1h x", /not `bob`/],
      ["!remind me sometime soon", /I could not read a time after `me`/],
      ["!remind me in 2 hours", /What should I remind about/],
      ["!remind @**Nobody** in 1h x", "I don't know a user @\u200b**Nobody**."],
      [
        "!remind #**nowhere>x** in 1h x",
        "I can't remind #**nowhere**: there is no channel by that name that you can post to.",
      ],
    ]);
    expect(t.scheduled()).toEqual([]);
  });

  it("posts only where the sender could post: not a private channel they are not in, not an unsubscribed one for a guest", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    const staff = t.realm.addChannel("staff", "", true);
    t.realm.subscribe(staff, t.sandbox.bot.userId);
    t.realm.subscribe(staff, t.user("adam").userId);
    const lobby = t.realm.addChannel("lobby");
    t.realm.subscribe(lobby, t.sandbox.bot.userId);
    t.realm.subscribe(lobby, t.user("mia").userId);
    const refusal = (name: string) =>
      `I can't remind #**${name}**: there is no channel by that name that you can post to.`;
    await t.dialog([["!remind #**staff>pay** in 1 minute @**all** free pizza", refusal("staff")]], {
      as: "gus",
    });
    await t.dialog([["!remind #**staff>pay** in 1 minute raise", refusal("staff")]], { as: "mia" });
    // A public channel: members who are not in it may post; a guest may not.
    await t.dialog([["!remind #**lobby>x** in 1 minute hi", refusal("lobby")]], { as: "gus" });
    expect(t.scheduled()).toEqual([]);
    await t.send("!remind #**lobby>x** in 1 minute hi", { as: "max" });
    await t.expectReply(/^I'll remind #\*\*lobby>x\*\* /);
    await t.send("!remind #**staff>pay** in 1 minute raise", { as: "adam" });
    await t.expectReply(/^I'll remind #\*\*staff>pay\*\* /);
    expect(t.scheduled().map((s) => s.content)).toEqual([
      "Reminder from **Max Moderator**: hi",
      "Reminder from **Adam Admin**: raise",
    ]);
  });

  it("for a guest in a realm where guests see everyone (the default), reminds anyone", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    // No shared channel: only the realm's setting (role:everyone) lets the guest see Olivia.
    guestInNoChannel(t);
    const { members } = await t.clientFor("gus").users.list({});
    expect(members.find((m) => m.user_id === t.user("olivia").userId)?.full_name).toBe(
      "Olivia Owner",
    );
    await t.dm("!remind @**Olivia Owner** in 1 minute hi", { as: "gus" });
    await t.expectReply(/^I'll remind @_\*\*Olivia Owner\|\d+\*\* /);
    expect(t.scheduled().map((s) => s.content)).toEqual(["Reminder from **Gus Guest**: hi"]);
  });

  it("reminds for a guest only users the guest can see: one answer for them and unknown users", async () => {
    t = await createTestBot({
      plugins: [remind],
      now: START,
      sandbox: { settings: { canAccessAllUsersGroup: "role:members" } },
    });
    // A guest limited to the users they share a channel with: here, nobody.
    const gus = guestInNoChannel(t);
    await t.dialog(
      [
        [
          "!remind @**Mia Member** in 1 minute @**all** pizza",
          "I don't know a user @\u200b**Mia Member**.",
        ],
        [`!remind @**Mia Member|${t.user("mia").userId}** in 1 minute x`, /^I don't know a user /],
        ["!remind @**Nobody** in 1 minute x", "I don't know a user @\u200b**Nobody**."],
      ],
      { as: "gus", dm: true },
    );
    expect(t.scheduled()).toEqual([]);
    // Once they share a channel, the guest can see Mia, and remind her.
    const lobby = t.realm.addChannel("lobby");
    for (const who of [t.sandbox.bot.userId, gus, t.user("mia").userId])
      t.realm.subscribe(lobby, who);
    await t.send("!remind @**Mia Member** in 1 minute hi", { as: "gus", channel: "lobby" });
    await t.expectReply(/^I'll remind @_\*\*Mia Member\|\d+\*\* /);
    expect(t.scheduled().map((s) => s.content)).toEqual(["Reminder from **Gus Guest**: hi"]);
  });

  it("for a guest in a realm that limits what guests see, never names a user the server hides from them", async () => {
    t = await createTestBot({
      plugins: [remind],
      now: START,
      sandbox: { settings: { canAccessAllUsersGroup: "role:members" } },
    });
    const gus = guestInNoChannel(t);
    const lobby = t.realm.addChannel("lobby");
    for (const who of [t.sandbox.bot.userId, gus, t.user("mia").userId])
      t.realm.subscribe(lobby, who);
    // A direct message from Max: the server shows Max to the guest from now on.
    await t.clientFor("max").messages.send({ type: "direct", to: [gus], content: "hello" });

    const { members } = await t.clientFor("gus").users.list({});
    const serverShows = new Map(members.map((m) => [m.user_id, m.full_name !== "Unknown user"]));
    const botAccepts = new Map<string, boolean>();
    for (const handle of ["olivia", "adam", "max", "mia", "gus"]) {
      const user = t.user(handle);
      await t.send(`!remind @**${user.fullName}|${user.userId}** in 1 minute x`, {
        as: "gus",
        channel: "lobby",
      });
      const answer = await t.reply();
      botAccepts.set(handle, answer.content.startsWith("I'll remind"));
      // Never more than the server: a name the guest may not see is not confirmed back to them.
      if (botAccepts.get(handle)) expect(serverShows.get(user.userId)).toBe(true);
      else expect(answer.content).toMatch(/^I don't know a user /);
    }
    // Channel co-subscribers and the guest agree with the server; a DM partner the bot cannot know
    // of (it does not read others' DMs) is refused: stricter than the server, documented.
    expect(Object.fromEntries(botAccepts)).toEqual({
      olivia: false,
      adam: false,
      max: false,
      mia: true,
      gus: true,
    });
    expect(serverShows.get(t.user("max").userId)).toBe(true);
    expect(serverShows.get(t.user("olivia").userId)).toBe(false);
  });

  it("quotes a reminder of several lines, so none of them passes for the bot's own", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    const forged = "see you\nReminder from **Olivia Owner**: you are fired";
    await t.send(`!remind @**Adam Admin** in 1 minute ${forged}`, { as: "gus" });
    const confirmation = await t.expectReply(/^I'll remind /);
    expect(confirmation.content).toMatch(
      /:\n```quote\nsee you\nReminder from \*\*Olivia Owner\*\*: you are fired\n```$/,
    );
    expect(t.scheduled().map((s) => s.content)).toEqual([
      "Reminder from **Gus Guest**:\n```quote\nsee you\nReminder from **Olivia Owner**: you are fired\n```",
    ]);
    await t.dm("!reminders", { as: "gus" });
    expect((await t.expectReply(/^Your reminders/)).content.split("\n")).toHaveLength(2);
  });

  it("answers absurd times with usage, naming the bound, and schedules nothing", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    await t.dialog([
      [
        "!remind me in 999999999 weeks x",
        /^The time `in 999999999 weeks` is more than 1 year ahead; give a time within 1 year\.\nUsage: `remind/,
      ],
      ["!remind me in 1e22 seconds x", /^I could not read a time after `me`.*\nUsage: `remind/],
      ["!remind me in 400 days x", /is more than 1 year ahead/],
      ["!remind me march 5, 2031 x", /is more than 1 year ahead/],
      [
        "!remind me 2025-01-01T00:00:00Z x",
        /^The time `2025-01-01T00:00:00Z` is not in the future/,
      ],
      [
        `!remind me in 1h ${"x".repeat(2001)}`,
        /^The reminder is 2001 characters long; at most 2000/,
      ],
    ]);
    expect(t.scheduled()).toEqual([]);
  });

  it("reads natural-language times people type", async () => {
    t = await createTestBot({ plugins: [remind], now: START });
    await t.dialog([
      ["!remind me next monday 9am standup", /<time:2025-03-10T09:00:00.000Z>: standup$/],
      ["!remind me march 5 5pm taxes", /<time:2025-03-05T17:00:00.000Z>: taxes$/],
      ["!remind me tonight bins", /<time:2025-03-03T22:00:00.000Z>: bins$/],
    ]);
  });
});

describe("parseReminder", () => {
  const now = Date.parse(START);
  it("takes the longest run of words that is a time", () => {
    expect(parseReminder("me tomorrow 9:00 call Bob", { now, timeZone: "UTC" })).toEqual({
      target: { kind: "me" },
      at: new Date("2025-03-04T09:00:00Z"),
      when: "tomorrow 9:00",
      what: "call Bob",
    });
    expect(
      parseReminder("#ops>deploys friday at 5pm freeze", { now, timeZone: "UTC" }).target,
    ).toEqual({
      kind: "topic",
      channel: "ops",
      topic: "deploys",
    });
  });
});
