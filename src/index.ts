// topicbot: write bots for chat servers that speak the Zulip REST API.
export { z } from "zod";
export * from "./runtime/index.js";
export { ApiError, NetworkError, InvalidArgumentError } from "./client/errors.js";
export type { ApiClient, CallOptions, ClientOptions } from "./client/client.js";
export { loadConfig, loadConfigFile, ConfigError } from "./config/index.js";
export type { BotConfig } from "./config/index.js";
export { createLogger } from "./log/logger.js";
export { createStore, createMemoryStore, createFileStore } from "./storage/index.js";
export type { KeyValueStore, StoreBackend, StorageConfig } from "./storage/index.js";
export type { Logger } from "./log/logger.js";
export type { Message, AnyEvent, EventOf, MessageEvent } from "./api/index.js";
