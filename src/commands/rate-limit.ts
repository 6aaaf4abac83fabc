// The per-user command rate limit every entry point defaults to: bot.config.yaml, createBot and the harness alike.
import type { RateLimit } from "./guards.js";

/** 10 commands per user in any 10 seconds: the one default for YAML's `rateLimit` and `createBot`. */
export const DEFAULT_RATE_LIMIT: Readonly<RateLimit> = Object.freeze({
  commands: 10,
  perSeconds: 10,
});
