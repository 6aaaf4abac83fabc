// The approval example under the harness: each way to answer, who may, a decision across a restart, expiry after a day of fake time.
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import approval from "./index.js";

const oncall = ["olivia@sandbox.test", "adam@sandbox.test"];
const start = (): Promise<TestBot> =>
  createTestBot({
    plugins: [{ plugin: approval, settings: { oncall } }],
    now: "2026-03-02T09:00:00Z",
  });
const deployed = async (t: TestBot): Promise<string[] | undefined> =>
  t.bot.storage.namespace("approval").get<string[]>("deployed");

describe("approval example", () => {
  let t: TestBot;
  afterEach(() => t?.close());

  it("asks with a card and deploys when someone on call clicks Approve", async () => {
    t = await start();
    await t.send("!deploy v1.2");
    const card = await t.expectReply(/\*\*Deploy v1\.2\?\*\*/);
    expect(card.content).toContain("Only the on-call group can decide.");
    expect(card.content).toMatch(/`!approve [a-z2-9]{6}` \(or react :check:\)/);
    // The open approval does not hold up its topic.
    await t.send("!help deploy");
    await t.expectReply(/Ask the on-call group to approve a deploy/);
    await t.click(card.id, "Approve", { as: "olivia" });
    await t.expectReply("Olivia Owner approved: deploying v1.2.");
    expect(await deployed(t)).toEqual(["v1.2"]);
  });

  it("refuses people not on call, and a second answer; a Reject chip decides", async () => {
    t = await start();
    await t.send("!deploy v1.3");
    const card = await t.reply();
    await t.click(card.id, "Approve", { as: "mia" });
    await t.expectReply(/Mia Member\|\d+\*\*: Only the 2 listed people may answer that card\./);
    await t.react(card.id, "cross_mark", { as: "adam" });
    await t.expectReply("Adam Admin rejected v1.3.");
    await t.click(card.id, "Approve", { as: "olivia" });
    await t.expectReply(/already answered: \*\*Reject\*\* by @_\*\*Adam Admin\|\d+\*\*/);
    expect(await deployed(t)).toBeUndefined();
  });

  it("survives a restart: approved while the bot was down, the deploy runs once after it", async () => {
    t = await start();
    await t.send("!deploy v2.0");
    const card = await t.reply();
    await t.restart({ whileDown: () => t.click(card.id, "Approve", { as: "adam" }) });
    await t.expectReply("Adam Admin approved: deploying v2.0.");
    await t.restart();
    await t.settle();
    expect(await deployed(t)).toEqual(["v2.0"]);
    expect(t.botMessages().filter((m) => m.content.includes("**Deploy v2.0?**"))).toHaveLength(1);
    expect(t.errors()).toEqual([]);
  });

  it("waits a day across a restart, then says it expired; a late click is refused", async () => {
    t = await start();
    await t.send("!deploy v3.0");
    const card = await t.reply();
    await t.clock.advance("12h");
    await t.restart();
    await t.clock.advance("11h");
    await t.expectNoReply();
    await t.clock.advance("1h");
    await t.expectReply("Nobody on call answered; v3.0 is not deployed.");
    await t.click(card.id, "Approve", { as: "olivia" });
    await t.expectReply(/That card expired <time:2026-03-03T09:00:00.000Z>/);
    expect(await deployed(t)).toBeUndefined();
    expect(t.errors()).toEqual([]);
  });
});
