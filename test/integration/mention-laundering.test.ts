// No mention laundering: user text the built-in plugins and replies repeat never pings anyone the text named.
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import poll from "../../plugins/poll/index.js";
import remind from "../../plugins/remind/index.js";

/** Flags the sandbox gave the bot's messages, per user, that notify: mentions and wildcards. */
function notifications(t: TestBot): { messageId: number; userId: number; flag: string }[] {
  const found: { messageId: number; userId: number; flag: string }[] = [];
  for (const m of t.realm.messages) {
    if (m.senderId !== t.sandbox.bot.userId) continue;
    for (const [userId, flags] of m.flags)
      for (const flag of flags)
        if (flag.includes("mentioned")) found.push({ messageId: m.id, userId, flag });
  }
  return found;
}

describe("mention laundering", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("a guest cannot make the bot ping everyone or a named user (remind, poll, unknown command)", async () => {
    t = await createTestBot({ plugins: [remind, poll], now: new Date("2025-03-03T08:00:00Z") });
    await t.send("!remind #**general>later** in 1 minute @**all** free pizza", { as: "gus" });
    await t.expectReply(/free pizza/);
    await t.send("!remind @**Adam Admin** in 1 minute @_**everyone** and @**Mia Member**", {
      as: "gus",
    });
    await t.expectReply(/Mia Member/);
    await t.send('!poll "@**all** lunch?" "@**Mia Member**" @*backend*', { as: "gus" });
    await t.expectReply(/Poll/);
    await t.send("!a`@**all**`", { as: "gus" });
    await t.expectReply(/I don't know the command/);
    await t.clock.advance("1m");
    await t.expectReply(/Reminder from/);
    await t.expectReply(/Reminder from/);
    expect(notifications(t)).toEqual([]);
  });

  it("fuzz: generated text through remind and poll notifies nobody", async () => {
    t = await createTestBot({ plugins: [remind, poll], now: new Date("2025-03-03T08:00:00Z") });
    const piece = fc.constantFrom(
      "@",
      "@_",
      "*",
      "**",
      "`",
      "all",
      "everyone",
      "topic",
      "channel",
      "Mia Member",
      "|",
      " ",
      "x",
    );
    const text = fc.array(piece, { minLength: 1, maxLength: 10 }).map((p) => `x ${p.join("")}`);
    await fc.assert(
      fc.asyncProperty(text, async (what) => {
        await t.send(`!remind #**general>later** in 1 minute ${what}`, { as: "gus" });
        await t.expectReply(/./);
        await t.send(`!poll "${what.replace(/"/g, "")}" a b`, { as: "gus" });
        await t.expectReply(/./);
        await t.clock.advance("1m");
        await t.expectReply(/Reminder from/);
        expect(notifications(t)).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });
});
