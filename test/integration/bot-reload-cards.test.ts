// bot.reload() under cards: a card posted before a reload stays clickable, and its click runs the new plugin set's action, once.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin } from "topicbot";
import { createTestBot, type TestBot } from "topicbot/testing";
import { until } from "../helpers/bot.js";

/** Which set's `hold` action ran, in order. */
const held: string[] = [];
const holder = definePlugin({
  name: "holder",
  config: z.object({ version: z.string() }),
  setup(bot, config) {
    bot.action("hold", {}, async (ctx) => {
      held.push(config.version);
      await ctx.reply(`Held by ${ctx.actor.fullName} (${config.version})`);
    });
    bot.command("release", {}, (ctx) =>
      ctx.card({
        heading: "Release?",
        choices: [{ label: "Hold", action: "hold", emoji: "stop_sign" }],
      }),
    );
  },
});

describe("bot.reload() with cards", () => {
  let t: TestBot;
  afterEach(async () => {
    await t?.close();
    held.length = 0;
  });

  it("keeps a card posted before the reload clickable: the click runs the new set's action once", async () => {
    t = await createTestBot({ plugins: [{ plugin: holder, settings: { version: "v1" } }] });
    await t.send("!release");
    const card = await t.reply();
    await t.bot.reload({ plugins: [{ plugin: holder, settings: { version: "v2" } }] });
    await t.click(card.id, "Hold");
    await t.expectReply("Held by Mia Member (v2)");
    expect(held).toEqual(["v2"]);

    // A second reload: a chip on a new card finds the action in the set now running.
    await t.send("!release");
    const chips = await t.reply();
    await t.bot.reload({ plugins: [{ plugin: holder, settings: { version: "v3" } }] });
    await until(() => t.reactions(chips.id).length === 1, "the bot's chip");
    await t.react(chips.id, "stop_sign", { as: "olivia" });
    await t.expectReply("Held by Olivia Owner (v3)");
    expect(held).toEqual(["v2", "v3"]);
  });

  it("replays the bot's own bot.action into each new set: its card stays clickable after reloads", async () => {
    t = await createTestBot({ plugins: [{ plugin: holder, settings: { version: "v1" } }] });
    const noted: number[] = [];
    t.bot.action("note", {}, async (ctx) => {
      noted.push(ctx.message.id);
      await ctx.reply("noted");
    });
    t.bot.command("ask", {}, (ctx) =>
      ctx.card({ heading: "Note it?", choices: [{ label: "Note", action: "note" }] }),
    );
    await t.send("!ask");
    const card = await t.reply();
    await t.bot.reload();
    await t.bot.reload({ plugins: [] });
    await t.click(card.id, "Note");
    await t.expectReply("noted");
    expect(noted).toHaveLength(1);
  });

  it("registers the built-in approve and reject in each new set once, so an approval asked before a reload is decided after it", async () => {
    const asked: string[] = [];
    const gate = definePlugin({
      name: "gate",
      setup(bot) {
        bot.command("deploy", {}, async (ctx) => {
          const decision = await ctx.approve("Deploy?", { approvers: { roles: ["owner"] } });
          asked.push(decision.approved ? "approved" : "not approved");
          await ctx.reply(decision.approved ? "deploying" : "not deploying");
        });
      },
    });
    t = await createTestBot({ plugins: [gate] });
    await t.bot.reload();
    await t.bot.reload();
    await t.send("!deploy");
    const card = await t.reply();
    await t.bot.reload();
    await t.click(card.id, "Approve", { as: "olivia" });
    await t.expectReply("deploying");
    expect(asked).toEqual(["approved"]);
  });
});
