// topicbot/sandbox: the embedded server that plays the chat server for tests, `bot dev` and `bot start`.
export { startSandbox } from "./server.js";
export type { Sandbox, SandboxAccount, SandboxOptions } from "./server.js";
export { ManualClock, systemClock } from "./clock.js";
export type { Clock } from "./clock.js";
export { Realm } from "./realm.js";
export type { SandboxUser, Channel, StoredMessage, RealmSettings } from "./model.js";
export { createRequestHandler } from "./handler.js";
export type { RequestHandler } from "./handler.js";
export { SEED_USERS, SEED_CHANNELS } from "./seed.js";
export type { SeedBot } from "./seed.js";
export { FaultInjector } from "./faults.js";
export type { FaultRule } from "./faults.js";
export { RequestRateLimiter } from "./ratelimit.js";
export type { RateLimitOptions } from "./ratelimit.js";
export { compileNarrow, parseNarrow } from "./narrow.js";
