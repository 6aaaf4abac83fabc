// topicbot: write bots for chat servers that speak the Zulip REST API.
export { z } from "zod";
export * from "./bot/index.js";
export * from "./markdown/escape.js";
export {
  ApiError,
  NetworkError,
  InvalidArgumentError,
  MessageEditWindowError,
  MessageMoveWindowError,
  WidgetEditError,
} from "./client/errors.js";
export type { ApiClient, CallOptions, ClientOptions } from "./client/client.js";
export { loadConfig, loadConfigFile, ConfigError } from "./config/index.js";
export type { BotConfig } from "./config/index.js";
export { createLogger } from "./log/logger.js";
export { createStore, createMemoryStore, createFileStore } from "./state/key-value/index.js";
export type { KeyValueStore, StoreBackend, StorageConfig } from "./state/key-value/index.js";
export type { Logger } from "./log/logger.js";
export type { Message, AnyEvent, EventOf, MessageEvent } from "./api/index.js";
export { WebhookError, WebhookResponse, respond } from "./webhooks/receiver.js";
export type { RouteAuth } from "./webhooks/auth.js";
export type { RouteOptions, WebhookHandler, WebhookRequest } from "./webhooks/receiver.js";
export type { OutgoingMessage } from "./webhooks/outgoing.js";
export { ManualSchedulerClock, CronExpressionError } from "./scheduler/index.js";
export type { CronJob, JobContext, ScheduledJob, SchedulerClock } from "./scheduler/index.js";
export { createBotMetrics, observeCalls } from "./metrics/bot.js";
export type { BotMetrics } from "./metrics/bot.js";
