// Plugins: a name, an optional settings schema, and a setup function that registers handlers.
import type { z } from "zod";
import type { PluginApi } from "./bot.js";

export interface Plugin<S extends z.ZodType = z.ZodType> {
  name: string;
  description?: string;
  /** Schema of the plugin's section of `bot.config.yaml`. */
  config?: S;
  setup(bot: PluginApi, config: z.output<S>): void | Promise<void>;
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
  return plugin;
}

/** A plugin with the settings it runs with. */
export interface PluginInstance {
  plugin: Plugin;
  settings?: unknown;
}
