import { afterEach, describe, expect, it } from "vitest";
import { createTestBot, describePluginDefaults, type TestBot } from "topicbot/testing";
import ping from "../ping/index.js";
import remind from "../remind/index.js";
import help, { hideSections } from "./index.js";

describePluginDefaults(help);

describe("help", () => {
  let t: TestBot;
  afterEach(async () => {
    await t.close();
  });

  it("leaves the built-in help as it is without settings", async () => {
    t = await createTestBot({ plugins: [help, ping] });
    await t.send("!help");
    const index = await t.expectReply(/^Commands \(say `!help <command>` for details\):/);
    expect(index.content).toContain("**ping**: Answers ping with pong");
    await t.dialog([["!help ping", /^`!ping`\nCheck that the bot answers/]]);
  });

  it("adds an introduction and a footer, and hides plugins from the list", async () => {
    t = await createTestBot({
      plugins: [
        {
          plugin: help,
          settings: {
            intro: "I'm the team's bot.",
            footer: "Problems? Ask in #**ops**.",
            hide: ["remind"],
          },
        },
        ping,
        remind,
      ],
    });
    await t.send("!help");
    const index = (await t.reply()).content;
    expect(index.startsWith("I'm the team's bot.\n\nCommands")).toBe(true);
    expect(index.endsWith("\n\nProblems? Ask in #**ops**.")).toBe(true);
    expect(index).toContain("**ping**");
    expect(index).not.toContain("remind");
    // Hidden from the list, still explained and still working.
    await t.dialog([["!help remind", /^`!remind`/]]);
  });

  it("answers in private when asked in a channel", async () => {
    t = await createTestBot({ plugins: [{ plugin: help, settings: { private: true } }, ping] });
    await t.send("!help", { as: "adam" });
    expect(await t.reply()).toMatchObject({
      type: "direct",
      content: expect.stringMatching(/^Commands/),
    });
    expect(await t.reply()).toMatchObject({
      type: "channel",
      content: expect.stringMatching(
        /^@_\*\*Adam Admin\|\d+\*\* I sent you the list of commands in a direct message\.$/,
      ),
    });
    await t.dm("help", { as: "adam" });
    expect(await t.reply()).toMatchObject({
      type: "direct",
      content: expect.stringMatching(/^Commands/),
    });
    await t.expectNoReply();
  });
});

describe("hideSections", () => {
  it("drops whole plugin sections and keeps the heading", () => {
    const index = "Commands:\n\n**a**: first\n- `!x`\n\n**b**\n- `!y`";
    expect(hideSections(index, ["a"])).toBe("Commands:\n\n**b**\n- `!y`");
    expect(hideSections(index, [])).toBe(index);
  });
});
