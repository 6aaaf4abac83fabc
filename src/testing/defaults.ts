// Default tests every plugin inherits: it describes itself, answers help, and survives an empty message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Plugin, PluginInstance } from "../runtime/plugin.js";
import { createTestBot, type TestBot, type TestBotOptions } from "./harness.js";

export interface PluginDefaultsOptions extends Omit<TestBotOptions, "plugins"> {
  /** Settings the plugin runs with in these tests. */
  settings?: unknown;
}

/**
 * Declares (with vitest) the tests every plugin should pass: it has a name and a description;
 * `!help` lists it and `!help <command>` explains each of its commands; an empty addressed
 * message (a bare mention, a bare prefix) gets a friendly answer and no plugin error.
 *
 * @example
 * import { describePluginDefaults } from "topicbot/testing";
 * import remind from "./index.js";
 * describePluginDefaults(remind);
 */
export function describePluginDefaults(plugin: Plugin, options: PluginDefaultsOptions = {}): void {
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
      expect(plugin.name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(plugin.description?.trim(), `plugin "${plugin.name}" has no description`).toBeTruthy();
    });

    it("is listed by help, and help explains each of its commands", async () => {
      const prefix = harness.config?.prefix ?? "!";
      const own = t.bot.commands().filter((c) => c.plugin === plugin.name);
      await t.send(`${prefix}help`, { topic: "defaults" });
      const index = await t.reply();
      for (const command of own) {
        expect(index.content).toContain(`${prefix}${command.usage}`);
        await t.send(`${prefix}help ${command.name}`, { topic: "defaults" });
        const detail = await t.reply();
        expect(detail.content).toContain(`${prefix}${command.usage}`);
        expect(command.description, `command "${command.name}" has no description`).toBeTruthy();
      }
      await t.expectNoReply();
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
      // The bot still answers afterwards.
      await t.send(`${prefix}help`, { topic: "empty" });
      await t.expectReply(/help/);
    });
  });
}
