// Default tests every plugin inherits: it describes itself, answers help, and survives an empty message.
import type * as Vitest from "vitest";
import { checkPluginName, type Plugin, type PluginInstance } from "../bot/plugin.js";
import { createTestBot, type TestBot, type TestBotOptions } from "./harness.js";

/**
 * vitest, when it is installed: only `describePluginDefaults` needs it, so `topicbot/testing`
 * (createTestBot and the rest) works with any test runner, or none.
 */
const vitest: typeof Vitest | undefined = await import("vitest").catch(() => undefined);

export interface PluginDefaultsOptions extends Omit<TestBotOptions, "plugins"> {
  /** Settings the plugin runs with in these tests. */
  settings?: unknown;
}

/**
 * Declares (with vitest) the tests every plugin should pass: its name follows the plugin-name
 * rule (`checkPluginName`, as `definePlugin` and `createTestBot` check it) and it has a
 * description; `!help <command>` explains each of its commands and `!help` lists them (a plugin
 * without commands, such as a catch-all that answers every message, has nothing to list: the
 * bot must still answer `!help` without errors); an empty addressed message (a bare mention, a
 * bare prefix) gets a friendly answer and no plugin error.
 *
 * @example
 * import { describePluginDefaults } from "topicbot/testing";
 * import remind from "./index.js";
 * describePluginDefaults(remind);
 */
export function describePluginDefaults(plugin: Plugin, options: PluginDefaultsOptions = {}): void {
  if (!vitest)
    throw new Error(
      "describePluginDefaults declares vitest tests, and vitest is not installed: `npm install --save-dev vitest` (createTestBot works without it)",
    );
  const { afterAll, beforeAll, describe, expect, it } = vitest;
  const { settings, ...harness } = options;
  const instance: PluginInstance = { plugin, settings };
  describe(`${plugin.name}: the defaults every plugin meets`, () => {
    let t: TestBot;
    beforeAll(async () => {
      t = await createTestBot({ ...harness, plugins: [instance] });
    });
    afterAll(async () => {
      await t?.close();
    });

    it("has a name and a description", () => {
      expect(() => checkPluginName(plugin.name)).not.toThrow();
      expect(plugin.description?.trim(), `plugin "${plugin.name}" has no description`).toBeTruthy();
    });

    it("is listed by help, and help explains each of its commands", async () => {
      const prefix = harness.config?.prefix ?? "!";
      const own = t.bot.commands().filter((c) => c.plugin === plugin.name);
      for (const command of own) {
        await t.send(`${prefix}help ${command.name}`, { topic: "defaults" });
        const detail = await t.reply();
        expect(detail.content).toContain(`${prefix}${command.usage}`);
        expect(command.description, `command "${command.name}" has no description`).toBeTruthy();
      }
      await t.send(`${prefix}help`, { topic: "defaults" });
      await t.settle();
      // A catch-all plugin may answer `!help` too: the index is whichever answer lists commands.
      const answers = t.drain().map((m) => m.content);
      expect(answers.length, `the bot did not answer ${prefix}help`).toBeGreaterThan(0);
      for (const command of own)
        expect(
          answers.some((a) => a.includes(`${prefix}${command.usage}`)),
          `${prefix}help does not list ${prefix}${command.usage}`,
        ).toBe(true);
      expect(t.errors().filter((e) => /failed/.test(e))).toEqual([]);
    });

    it("survives an empty message", async () => {
      const prefix = harness.config?.prefix ?? "!";
      for (const empty of [`@**${t.bot.me.fullName}**`, prefix]) {
        await t.send(empty, { topic: "empty" });
        await t.settle();
      }
      await t.dm(" .");
      await t.settle();
      const answers = t.drain().map((m) => m.content);
      const failures = t.errors().filter((e) => /failed/.test(e));
      expect(failures, failures.join("\n")).toEqual([]);
      for (const answer of answers) expect(answer).not.toMatch(/something went wrong/i);
      // The bot still answers afterwards (help, or a catch-all plugin's answer).
      await t.send(`${prefix}help`, { topic: "empty" });
      await t.reply();
      await t.settle();
      t.drain();
    });
  });
}
