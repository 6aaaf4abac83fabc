// `arg.user()` follows the realm's guest access: a limited guest cannot name others (the same answer as for nobody); by default guests name anyone.
import { afterEach, describe, expect, it } from "vitest";
import { arg, definePlugin, escapeText } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";

const whois = definePlugin({
  name: "whois",
  description: "Names a user's time zone.",
  setup(bot) {
    bot.command(
      "whois",
      { description: "A user's time zone", args: { who: arg.user() } },
      async (ctx) => {
        const { who } = ctx.command.args;
        await ctx.reply(`${who.fullName}: ${who.timezone || "no zone"} (${who.email})`);
      },
    );
  },
});

/** A realm that limits guests to the users they share a channel or a DM with. */
const LIMITED = { settings: { canAccessAllUsersGroup: "role:members" as const } };

describe("arg.user() and a guest's user access", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("resolves for a guest only users sharing a channel with them", async () => {
    t = await createTestBot({ plugins: [whois], sandbox: LIMITED });
    const gus = t.user("gus").userId;
    for (const channel of t.realm.channels.values()) channel.subscribers.delete(gus);
    const mia = t.user("mia");
    const ask = async (text: string, as = "gus") => {
      await t.dm(`!whois ${text}`, { as });
      return (await t.expectReply(/./)).content;
    };
    const unknown = await ask("@**Nobody**");
    expect(unknown).toMatch(/I don't know a user @\u200b\*\*Nobody\*\*/);
    for (const text of [`@**Mia Member**`, `@**Mia Member|${mia.userId}**`, mia.email])
      expect(await ask(text)).toBe(unknown.replace("@\u200b**Nobody**", escapeText(text)));
    // A member sees everyone; the guest themselves always.
    expect(await ask("@**Mia Member**", "max")).toMatch(/^Mia Member: /);
    expect(await ask("me")).toMatch(/^Gus Guest: /);
    // Bots are visible to every guest, as on the server.
    expect(await ask(`@**${t.sandbox.bot.fullName}**`)).toMatch(
      new RegExp(`^${t.sandbox.bot.fullName}: `),
    );
    const lobby = t.realm.addChannel("lobby");
    for (const who of [t.sandbox.bot.userId, gus, mia.userId]) t.realm.subscribe(lobby, who);
    expect(await ask("@**Mia Member**")).toMatch(/^Mia Member: /);
  });

  it("names to a guest only the namesakes they can see", async () => {
    t = await createTestBot({ plugins: [whois], sandbox: LIMITED });
    const gus = t.user("gus").userId;
    const seen = await t.createUser({ handle: "sam1", fullName: "Sam" });
    const hidden = await t.createUser({ handle: "sam2", fullName: "Sam" });
    for (const channel of t.realm.channels.values()) channel.subscribers.delete(gus);
    const lobby = t.realm.addChannel("lobby");
    for (const who of [t.sandbox.bot.userId, gus, seen.userId]) t.realm.subscribe(lobby, who);
    // A member is told both IDs; the guest gets the one Sam they can see.
    await t.dm("!whois @**Sam**", { as: "max" });
    expect((await t.expectReply(/./)).content).toContain(`${seen.userId}, ${hidden.userId}`);
    await t.dm("!whois @**Sam**", { as: "gus" });
    expect((await t.expectReply(/./)).content).toMatch(
      new RegExp(`^Sam: \\S+ \\(${seen.email.replace(".", "\\.")}\\)$`),
    );
  });

  it("resolves anyone for a guest where the realm lets guests see everyone (the default)", async () => {
    t = await createTestBot({ plugins: [whois] });
    const gus = t.user("gus").userId;
    for (const channel of t.realm.channels.values()) channel.subscribers.delete(gus);
    await t.dm("!whois @**Olivia Owner**", { as: "gus" });
    expect((await t.expectReply(/./)).content).toMatch(/^Olivia Owner: /);
  });
});
