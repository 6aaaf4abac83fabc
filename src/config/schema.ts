// The schema of bot.config.yaml: one zod description, from which types and validation come.
import { z } from "zod";

export const serverConfig = z.strictObject({
  /** Server root URL, e.g. https://chat.example.com. */
  site: z.url({ protocol: /^https?$/ }),
  /** The bot's API email. */
  email: z.string().min(1),
  /** The bot's API key. */
  apiKey: z.string().min(1),
});

/** One entry of `plugins`: a name, or a one-key map from the name to the plugin's settings. */
export const pluginEntry = z.union([
  z.string().min(1),
  z.record(z.string().min(1), z.unknown()).refine((m) => Object.keys(m).length === 1, {
    message: "a plugin entry with settings is a map with exactly one key, the plugin's name",
  }),
]);

export const botConfig = z.strictObject({
  /** Where the bot connects; omitted, `bot start` runs the embedded sandbox. */
  server: serverConfig.optional(),
  /** Settings of the embedded sandbox, used when `server` is absent. */
  sandbox: z
    .strictObject({ port: z.number().int().min(0).max(65_535).default(0) })
    .default({ port: 0 }),
  /** Command prefix in channels. */
  prefix: z.string().max(8).default("!"),
  /** Which messages reach plugins: `addressed` (DMs, mentions, prefix) or `all`. */
  respondTo: z.enum(["addressed", "all"]).default("addressed"),
  logging: z
    .strictObject({
      level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
      format: z.enum(["pretty", "json"]).optional(),
    })
    .default({ level: "info" }),
  /** Plugins in load order. */
  plugins: z.array(pluginEntry).default([]),
});

export type BotConfig = z.output<typeof botConfig>;
export type ServerConfig = z.output<typeof serverConfig>;
