// A model's answer is steered by whoever wrote to it: through answer(), it cannot make the bot ping anyone.
import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import { definePlugin } from "../../src/bot/plugin.js";
import { answer, mockModel } from "../../src/ai/index.js";

describe("answer() and mentions", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it("shows the mentions a model repeats as typed, notifying nobody", async () => {
    const agent = definePlugin({
      name: "agent",
      setup(bot) {
        // The mock model repeats what it was told, as a model asked to would.
        bot.command("ask", { description: "Ask the model" }, (ctx) =>
          answer(ctx, { model: mockModel({ chunkDelayMs: 0 }), history: false, tools: false }),
        );
      },
    });
    t = await createTestBot({ plugins: [agent] });
    await t.send("!ask @**all** free pizza, thanks @**Olivia Owner** and @*moderators*", {
      as: "gus",
    });
    const reply = await t.reply();
    await t.settle();
    const posted = t.realm.message(reply.id)!;
    expect(posted.content).toContain("@\u200b**all** free pizza");
    const notified = [...posted.flags.entries()].filter(([, flags]) =>
      [...flags].some((f) => /mentioned/.test(f)),
    );
    expect(notified).toEqual([]);
  });
});
