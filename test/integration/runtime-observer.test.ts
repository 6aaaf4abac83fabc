import { afterEach, describe, expect, it } from "vitest";
import { definePlugin } from "../../src/bot/plugin.js";
import type { IgnoredReason } from "../../src/model/observer.js";
import { createTestBot, type TestBot } from "../../src/testing/harness.js";
import { until } from "../helpers/bot.js";

const deploy = definePlugin({
  name: "deploy",
  setup(bot) {
    bot.command("deploy", { roles: ["owner", "administrator", "member"] }, (ctx) =>
      ctx.reply("deployed"),
    );
  },
});

describe("the bot's observer (what bot dev --web shows)", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("hears every event and why a message ran no handler: not addressed, role refused, unknown command", async () => {
    const ignored = new Map<number, IgnoredReason>();
    const events: string[] = [];
    t = await createTestBot({
      plugins: [deploy],
      config: {
        observer: {
          ignored: (id, why) => ignored.set(id, why),
          event: (e) => events.push(e.type),
        },
      },
    });

    const chat = await t.send("lunch at noon?");
    await until(() => ignored.has(chat), "the not-addressed verdict");
    expect(ignored.get(chat)).toEqual({ reason: "not-addressed" });

    const refused = await t.send("!deploy", { as: "gus" });
    await t.expectReply(/only for/);
    expect(ignored.get(refused)).toMatchObject({
      reason: "role-refused",
      command: "deploy",
      role: "guest",
      reply: expect.stringMatching(/only for/),
    });

    const typo = await t.send("!deplyo");
    await t.expectReply(/deploy/);
    expect(ignored.get(typo)).toMatchObject({
      reason: "unknown-command",
      word: "deplyo",
      reply: expect.stringMatching(/deploy/),
    });

    const handled = await t.send("!deploy");
    await t.expectReply("deployed");
    expect(ignored.has(handled)).toBe(false);
    expect(events.filter((type) => type === "message").length).toBeGreaterThanOrEqual(4);
  });

  it("keeps running when the observer throws", async () => {
    t = await createTestBot({
      plugins: [deploy],
      config: {
        observer: {
          ignored: () => {
            throw new Error("onlooker failed");
          },
          event: () => {
            throw new Error("onlooker failed");
          },
        },
      },
    });
    await t.send("!nope");
    await t.expectReply(/don't know the command `nope`/);
    await t.send("!deploy");
    await t.expectReply("deployed");
  });
});
