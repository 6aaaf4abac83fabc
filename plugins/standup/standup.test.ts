import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestBot, describePluginDefaults, type TestBot } from "topicbot/testing";
import standup, { dayIn } from "./index.js";

// Every warning the plugin makes the process emit, from the first bot of this file on.
const warnings = vi.spyOn(process, "emitWarning");

describePluginDefaults(standup);

it("schedules its jobs without a deprecation warning (bot.cron's `timeZone`)", async () => {
  const t = await createTestBot({
    plugins: [{ plugin: standup, settings: { channel: "team", timezone: "Europe/Paris" } }],
  });
  await t.close();
  const codes = warnings.mock.calls.map(([, options]) =>
    typeof options === "object" && options !== null && "code" in options ? options.code : options,
  );
  expect(codes).not.toContain("TOPICBOT_TIMEZONE");
});

describe("standup", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("asks on schedule, collects the topic's answers, and sums them up", async () => {
    // Monday 3 March 2025, 08:59 in Paris.
    t = await createTestBot({
      plugins: [{ plugin: standup, settings: { channel: "team", timezone: "Europe/Paris" } }],
      now: "2025-03-03T07:59:00Z",
    });
    await t.channel("team");
    await t.dialog([["!standup", "No stand-up has been asked yet."]]);
    await t.clock.advance("1m");
    expect(await t.expectReply(/^Stand-up time!/)).toMatchObject({
      channel: "team",
      topic: "standup",
    });

    await t.send("Did the release notes; next the migration.", {
      as: "mia",
      channel: "team",
      topic: "standup",
    });
    await t.send("Reviewing PRs. Blocked on CI.", {
      as: "adam",
      channel: "team",
      topic: "standup",
    });
    await t.send("Actually: reviewing PRs, CI fixed.", {
      as: "adam",
      channel: "team",
      topic: "standup",
    });
    await t.send("unrelated", { as: "max", channel: "team", topic: "lunch" });
    await t.settle();
    await t.dialog([["!standup", /^Stand-up 2025-03-03: 2 answers\.[\s\S]*\(still open\)$/]], {
      channel: "team",
      topic: "chat",
    });

    await t.clock.set("2025-03-03T10:00:00Z"); // 11:00 in Paris
    expect((await t.expectReply(/^Stand-up 2025-03-03: 2 answers\./)).content).toBe(
      "Stand-up 2025-03-03: 2 answers.\n- **Mia Member**: Did the release notes; next the migration.\n- **Adam Admin**: Actually: reviewing PRs, CI fixed.",
    );
  });

  it("shows the answers only to those who can read the stand-up's channel", async () => {
    t = await createTestBot({
      plugins: [{ plugin: standup, settings: { channel: "staff", timezone: "UTC" } }],
      now: "2025-03-03T08:59:00Z",
    });
    // A private channel that shares its history with subscribers.
    const staff = t.realm.addChannel("staff", "", true, true);
    for (const who of [t.sandbox.bot.userId, t.user("mia").userId, t.user("adam").userId])
      t.realm.subscribe(staff, who);
    await t.clock.advance("1m");
    await t.expectReply(/^Stand-up time!/);
    await t.send("Payroll fixes; blocked on the bank.", {
      as: "adam",
      channel: "staff",
      topic: "standup",
    });
    await t.settle();
    const refusal = "I can't show you the stand-up: I can't tell that you can read its channel.";
    // A guest, and a moderator who is not in the private channel, asking in a DM.
    for (const who of ["gus", "max"]) {
      await t.dm("!standup", { as: who });
      expect((await t.expectReply(refusal)).content).toBe(refusal);
    }
    await t.dm("!standup", { as: "mia" });
    expect((await t.expectReply(/^Stand-up 2025-03-03: 1 answer/)).content).toContain(
      "Payroll fixes; blocked on the bank.",
    );
  });

  it("in a private channel with protected history, shows the answers to nobody", async () => {
    t = await createTestBot({
      plugins: [{ plugin: standup, settings: { channel: "staff", timezone: "UTC" } }],
      now: "2025-03-03T08:59:00Z",
    });
    const staff = t.realm.addChannel("staff", "", true);
    for (const who of [t.sandbox.bot.userId, t.user("adam").userId]) t.realm.subscribe(staff, who);
    await t.clock.advance("1m");
    await t.expectReply(/^Stand-up time!/);
    await t.send("Payroll fixes.", { as: "adam", channel: "staff", topic: "standup" });
    await t.settle();
    // Mia joins after the answers: the server would not show them to her.
    t.realm.subscribe(staff, t.user("mia").userId);
    await t.dm("!standup", { as: "mia" });
    const refusal = "I can't show you the stand-up: I can't tell that you can read its channel.";
    expect((await t.expectReply(refusal)).content).toBe(refusal);
  });

  it("skips weekends and says so when nobody answered", async () => {
    // Friday 7 March 2025, 10:59 UTC: the summary of a round nobody answered, then a quiet weekend.
    t = await createTestBot({ plugins: [standup], now: "2025-03-07T08:59:00Z" });
    await t.clock.advance("1m");
    await t.expectReply(/^Stand-up time!/);
    await t.clock.set("2025-03-07T11:00:00Z");
    await t.expectReply("Stand-up 2025-03-07: nobody answered.");
    await t.clock.set("2025-03-09T12:00:00Z");
    await t.expectNoReply();
    await t.clock.set("2025-03-10T09:00:00Z");
    await t.expectReply(/^Stand-up time!/);
  });
});

describe("dayIn", () => {
  it("names the day in the zone", () => {
    expect(dayIn(new Date("2025-03-02T23:30:00Z"), "Europe/Paris")).toBe("2025-03-03");
    expect(dayIn(new Date("2025-03-02T23:30:00Z"), "UTC")).toBe("2025-03-02");
  });
});
