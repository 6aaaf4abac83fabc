// Plugins: a name, an optional settings schema, and a setup function that registers handlers.
import type { z } from "zod";
import type { PluginApi } from "./plugin-api.js";
import type { Overlap } from "../model/overlap.js";

export interface Plugin<S extends z.ZodType = z.ZodType> {
  name: string;
  description?: string;
  /** Schema of the plugin's section of `bot.config.yaml`. */
  config?: S;
  /**
   * What the plugin's handlers do with messages that reach a conversation while they still run
   * there: `queue` (default), `latest`, `burst`, `interrupt`, `concurrent`, or `{ mode, ... }`
   * with limits. A handler's own `overlap` option wins. See docs/agents.md.
   */
  overlap?: Overlap;
  setup(bot: PluginApi, config: z.output<S>): void | Promise<void>;
}

/**
 * The plugin-name rule: lowercase letters, digits, dashes and underscores, starting with a letter
 * (`greet`, `stand-up`, and the names of Zulip's own bots: `virtual_fs`, `game_handler_bot`).
 * Every character is safe where a name goes: a config key, a storage namespace (no NUL), a log
 * field, a metric label value (no quote, backslash or newline), a Redis key and a file name.
 */
export const PLUGIN_NAME_RULE = /^[a-z][a-z0-9_-]*$/;

/**
 * Throws unless `name` follows the plugin-name rule; the one check `definePlugin`,
 * `createTestBot` and `describePluginDefaults` apply.
 */
export function checkPluginName(name: unknown): void {
  if (typeof name !== "string" || !PLUGIN_NAME_RULE.test(name))
    throw new Error(
      `plugin name ${JSON.stringify(name)} is invalid: use lowercase letters, digits, dashes and underscores, starting with a letter (e.g. "stand-up", "virtual_fs")`,
    );
}

/**
 * Declares a plugin. An identity helper: it exists so the settings type is inferred from the schema.
 *
 * @example
 * export default definePlugin({
 *   name: "greet",
 *   config: z.object({ greeting: z.string().default("hello") }),
 *   setup(bot, config) {
 *     bot.command("greet", { description: "Say hello" }, (ctx) => ctx.reply(config.greeting));
 *   },
 * });
 */
export function definePlugin<S extends z.ZodType = z.ZodObject<Record<string, never>>>(
  plugin: Plugin<S>,
): Plugin<S> {
  checkPluginName(plugin.name);
  return plugin;
}

/** A plugin with the settings it runs with. */
export interface PluginInstance {
  plugin: Plugin;
  settings?: unknown;
}
