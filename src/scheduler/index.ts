// Scheduling: cron jobs on an injectable clock, and the `schedules:` config section.
export * from "./cron.js";
export * from "./clock.js";
export * from "./scheduler.js";
export * from "./config.js";
