// Metrics: a small Prometheus registry and the bot's standard metrics.
export * from "./registry.js";
export * from "./bot.js";
