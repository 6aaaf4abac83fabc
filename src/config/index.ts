// Configuration: bot.config.yaml's schema, loading and plugin resolution.
export { loadConfig, loadConfigFile, interpolate } from "./load.js";
export { botConfig, serverConfig } from "./schema.js";
export type { BotConfig, ServerConfig } from "./schema.js";
export { ConfigError } from "./errors.js";
export { resolvePlugins, importFile } from "./plugins.js";
