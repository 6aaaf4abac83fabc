// Configuration: bot.config.yaml's schema, loading, zuliprc files and plugin resolution.
export { loadConfig, loadConfigFile, interpolate } from "./load.js";
export type { LoadOptions } from "./load.js";
export { botConfig, serverConfig, configJsonSchema, isTimeZone } from "./schema.js";
export type { BotConfig, ServerConfig, StorageSettings, RateLimitSettings } from "./schema.js";
export { ConfigError } from "./errors.js";
export { configSecrets } from "./secrets.js";
export { parseZuliprc } from "./zuliprc.js";
export { resolvePlugins, importFile } from "./plugins.js";
