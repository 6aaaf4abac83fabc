// Cards and actions end to end over loopback HTTP: each transport (zform reply text, typed text, chip, vote), forged and replayed clicks, a card update, polls.
import { afterEach, describe, expect, it } from "vitest";
import { arg, definePlugin, type Card } from "topicbot";
import { zformChoices } from "../../src/testing/widgets.js";
import { createTestBot, type TestBot } from "topicbot/testing";
import { until } from "../helpers/bot.js";

const ran: { version: string; by: string; via: string }[] = [];
let lastCard: Card | undefined;
/** The card's token, read from its text as a person would. */
const tokenIn = (content: string): string => /`!\w+ ([a-z2-9]{6})/.exec(content)![1]!;

const deployer = definePlugin({
  name: "deployer",
  setup(bot) {
    bot.action("ship", { args: { version: arg.string() } }, async (ctx) => {
      ran.push({ version: ctx.action.args.version, by: ctx.actor.fullName, via: ctx.actor.via });
      await ctx.reply(`Shipping ${ctx.action.args.version} for ${ctx.actor.fullName}`);
      lastCard = await ctx.action.card!.update({
        heading: `Shipped ${ctx.action.args.version}`,
        done: true,
      });
    });
    bot.action("hold", {}, (ctx) => ctx.reply(`Held by ${ctx.actor.fullName}`));
    bot.command("release", { args: { version: arg.string() } }, async (ctx) => {
      lastCard = await ctx.card({
        heading: `Release ${ctx.command.args.version}?`,
        body: "The *release* train leaves at noon.",
        choices: [
          { label: "Ship", action: "ship", args: ctx.command.args.version, emoji: "rocket" },
          { label: "Hold", action: "hold", emoji: "stop_sign" },
        ],
        allow: { roles: ["administrator", "owner"], asker: true },
        expires: "2h",
      });
    });
    bot.action("eat", { args: { choice: arg.rest() } }, (ctx) =>
      ctx.reply(`${ctx.actor.fullName} votes ${ctx.action.args.choice}`),
    );
    bot.command("lunch", {}, async (ctx) => {
      const poll = await ctx.poll("Lunch?", ["pizza", "soup"], { action: "eat" });
      lastCard = { token: "", messageId: poll.id, update: () => Promise.reject(new Error("no")) };
    });
    bot.command("tally", { args: { id: arg.integer() } }, async (ctx) => {
      const { message } = await ctx.api.messages.get({ message_id: ctx.command.args.id });
      const { pollTally } = await import("topicbot");
      const tally = pollTally(message.submessages ?? [])!;
      await ctx.reply(tally.options.map((o) => `${o.text}=${o.votes}`).join(" "));
    });
  },
});

describe("cards and actions", () => {
  let t: TestBot;
  afterEach(async () => {
    await t?.close();
    ran.length = 0;
  });

  it("posts a card readable everywhere: Markdown choices and commands, a zform the server took, the bot's chips", async () => {
    t = await createTestBot({ plugins: [deployer], now: "2026-03-02T09:00:00Z" });
    await t.send("!release v1.2");
    const card = await t.reply();
    const token = tokenIn(card.content);
    expect(token).toMatch(/^[a-z2-9]{6}$/);
    expect(card.content).toContain("**Release v1.2?**");
    expect(card.content).toContain(`\`!ship ${token} v1.2\` (or react :rocket:)`);
    expect(card.content).toContain(`\`!hold ${token}\``);
    expect(card.content).toContain("<time:2026-03-02T11:00:00.000Z>");
    const stored = t.realm.message(card.id)!;
    const widget = JSON.parse(stored.submessages[0]!.content) as {
      widget_type: string;
      extra_data: { choices: { short_name: string; reply: string }[] };
    };
    expect(widget.widget_type).toBe("zform");
    expect(widget.extra_data.choices.map((c) => [c.short_name, c.reply])).toEqual([
      ["Ship", `ship ${token} v1.2`],
      ["Hold", `hold ${token}`],
    ]);
    await until(() => t.reactions(card.id).length === 2, "the bot's two chips");
    expect(
      t
        .reactions(card.id)
        .map((r) => r.emoji)
        .sort(),
    ).toEqual(["rocket", "stop_sign"]);
  });

  it("runs the action for a button click (the reply text, as the web client sends it), once; a replay is refused", async () => {
    t = await createTestBot({ plugins: [deployer] });
    await t.send("!release v1.2");
    const card = await t.reply();
    const hold = zformChoices(t.realm, card.id).find((c) => c.label === "Hold")!;
    await t.click(card.id, "Ship");
    await t.expectReply("Shipping v1.2 for Mia Member");
    const updated = await t.reply();
    expect(updated.content).toContain("**Shipped v1.2**");
    expect(updated.content).not.toContain("!ship");
    expect(ran).toEqual([{ version: "v1.2", by: "Mia Member", via: "message" }]);
    // The card now shows in the new message; the old copy is deleted (the bot may delete its own).
    await until(() => lastCard?.messageId === updated.id, "the card's new message tracked");
    await until(() => t.realm.message(card.id) === undefined, "the old copy deleted");
    // The old copy's other button, as a client that still shows it would click it (its command
    // typed): refused, the handler does not run twice.
    await t.send(`!${hold.reply}`, { as: "olivia" });
    await t.expectReply(/already answered: \*\*Ship\*\* by @_\*\*Mia Member\|\d+\*\*/);
    expect(ran).toHaveLength(1);
  });

  it("takes the same text typed by hand and a reaction chip alike", async () => {
    t = await createTestBot({ plugins: [deployer] });
    await t.send("!release v2");
    const first = await t.reply();
    await t.send(`!hold ${tokenIn(first.content)}`);
    await t.expectReply("Held by Mia Member");
    await t.send("!release v3");
    const card = await t.reply();
    await t.react(card.id, "rocket", { as: "olivia" });
    await t.expectReply("Shipping v3 for Olivia Owner");
    await t.reply();
    expect(ran.at(-1)).toEqual({ version: "v3", by: "Olivia Owner", via: "reaction" });
  });

  it("takes a click in a direct message, where the web client sends the reply text alone", async () => {
    t = await createTestBot({ plugins: [deployer] });
    await t.dm("release v7");
    const card = await t.reply();
    const click = await t.click(card.id, "Hold");
    expect(t.realm.message(click)!.content).toBe(`hold ${tokenIn(card.content)}`);
    await t.expectReply("Held by Mia Member");
  });

  it("follows its card when the topic is renamed: a click in the new topic counts", async () => {
    t = await createTestBot({ plugins: [deployer] });
    await t.send("!release v8", { topic: "old name" });
    const card = await t.reply();
    await t.renameTopic("general", "old name", "new name");
    await t.click(card.id, "Hold");
    await t.expectReply("Held by Mia Member");
    expect(t.realm.message(card.id)!.topic).toBe("new name");
  });

  it("shows the mention to type under respondTo: mentions, where the prefix addresses nothing", async () => {
    t = await createTestBot({ plugins: [deployer], config: { respondTo: "mentions" } });
    await t.send("@**Topic Bot** release v9");
    const card = await t.reply();
    const token = /@_\*\*Topic Bot\*\* `hold ([a-z2-9]{6})`/.exec(card.content)![1]!;
    await t.send(`@**Topic Bot** hold ${token}`);
    await t.expectReply("Held by Mia Member");
  });

  it("refuses forged clicks: an unknown token, a choice the card does not offer, another conversation, a clicker not allowed, an expired card", async () => {
    t = await createTestBot({ plugins: [deployer], now: "2026-03-02T09:00:00Z" });
    await t.send("!release v1");
    const token = tokenIn((await t.reply()).content);
    await t.send("!ship zzzzzz v1");
    await t.expectReply(/There is no card `zzzzzz`/);
    await t.send(`!ship ${token} v9`);
    await t.expectReply(/`ship [a-z2-9]{6} v9` is not one of that card's choices/);
    await t.send(`!ship ${token} v1`, { topic: "elsewhere" });
    await t.expectReply(/another conversation/);
    await t.send(`!ship ${token} v1 @**all**`, { as: "max" });
    // Text that does not fit the action's arguments gets the usage reply, the mention inert.
    const forged = await t.expectReply(/^Usage: `!ship <card> <version>`/);
    expect(forged.content).toContain("`@\u200b**all**`");
    await t.send(`!ship ${token} v1`, { as: "max" });
    await t.expectReply(
      /: Only the person who asked, or administrators and owners may answer that card\./,
    );
    await t.clock.advance("3h");
    await t.send(`!ship ${token} v1`);
    await t.expectReply(/That card expired <time:2026-03-02T11:00:00.000Z>/);
    expect(ran).toEqual([]);
  });

  it("runs a poll's action for each vote, once, and tallies the votes as the web client counts", async () => {
    t = await createTestBot({ plugins: [deployer] });
    await t.send("!lunch");
    const poll = await t.reply();
    await t.vote(poll.id, "soup", { as: "olivia" });
    await t.expectReply("Olivia Owner votes soup");
    await t.vote(poll.id, 0);
    await t.expectReply("Mia Member votes pizza");
    await t.vote(poll.id, 0, { vote: -1 });
    await t.vote(poll.id, 1);
    await t.expectReply("Mia Member votes soup");
    await t.send(`!tally ${poll.id}`);
    await t.expectReply("pizza=0 soup=2");
    // A vote made while the bot is down runs the action once, after the restart.
    await t.restart({ whileDown: () => t.vote(poll.id, "pizza", { as: "adam" }) });
    await t.expectReply("Adam Admin votes pizza");
    await t.restart();
    await t.settle();
    expect(t.botMessages().filter((m) => m.content.endsWith("votes pizza"))).toHaveLength(2);
  });

  it("handles a click sent while the bot was down once, after the restart; chips added meanwhile too", async () => {
    t = await createTestBot({ plugins: [deployer] });
    await t.send("!release v4");
    const card = await t.reply();
    await t.send("!release v5", { topic: "other" });
    const second = await t.reply();
    await t.restart({
      whileDown: async () => {
        await t.click(card.id, "Ship");
        await t.react(second.id, "stop_sign", { as: "olivia" });
      },
    });
    await until(() => ran.length === 1, "the click handled after the restart", 10_000);
    await t.expectReply(/Shipping v4|Held by Olivia/);
    await t.expectReply(/Shipping v4|Held by Olivia/);
    await t.settle();
    await t.restart();
    await t.settle();
    expect(ran).toEqual([{ version: "v4", by: "Mia Member", via: "message" }]);
    expect(t.botMessages().filter((m) => m.content.startsWith("Held by"))).toHaveLength(1);
    expect(t.errors()).toEqual([]);
  });
});
