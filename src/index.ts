// topicbot: write bots for chat servers that speak the Zulip REST API. The whole public surface, by audience; nothing else is public.

// ---- Writing a plugin -------------------------------------------------------------------------
export { z } from "zod";
export { definePlugin } from "./bot/plugin.js";
export type { Plugin, PluginInstance } from "./bot/plugin.js";
export type { PluginApi, EventListener, CronOptions } from "./bot/plugin-api.js";
export type { Middleware, Next } from "./dispatch/compose.js";
export type {
  Handler,
  Filter,
  CommandContext,
  NoArgs,
  ListenerOptions,
} from "./dispatch/router.js";
export type { Overlap, OverlapMode, OverlapStrategy } from "./model/overlap.js";
export type { OverlapCall } from "./dispatch/overlap.js";

// ---- What a handler gets: the message context and its actions ---------------------------------
export type { MessageContext } from "./context/context.js";
export type { Sender, AskOptions } from "./context/context-types.js";
export type { ContextState } from "./model/context-state.js";
export type { StreamBudget, StreamOptions, StreamResult, TextSource } from "./context/stream.js";
export type { Conversation } from "./model/conversation.js";
export { conversationKey } from "./model/conversation.js";
export type { Addressing, BotAccount, BotIdentity } from "./model/account.js";
export type { RespondTo } from "./dispatch/gate.js";
export type { Session, SessionKind, SessionKindOptions } from "./context/session.js";
export type {
  EditChanges,
  SentMessage,
  SendTarget,
  UserTarget,
  Widget,
} from "./context/actions.js";
export { splitMessage } from "./context/actions.js";
export type { MessageRef } from "./context/chat-actions.js";
export { pollContent, todoContent } from "./context/widgets.js";
export type { Poll } from "./context/context-types.js";
export { pollTally, pollVoteOf } from "./context/polls.js";
export type { PollVote, SubmessageLike } from "./context/polls.js";
export { ApprovalPendingError } from "./model/cards.js";
export type {
  Actor,
  Allow,
  ApprovalDecision,
  ApproveOptions,
  Card,
  CardChoice,
  CardSpec,
  CardUpdate,
  ClickTransport,
  PollOptions,
  PollOptionTally,
  PollTally,
} from "./model/cards.js";
export type { ActionContext, ActionInvocation, ActionSpec } from "./cards/actions.js";
export { cardContent, cardWidget } from "./cards/render.js";
export { AmbiguousNameError } from "./context/directory.js";
export type { Directory, ChatUser, UserLookup } from "./context/directory.js";
export {
  canUserAccessUser,
  canUserPostTo,
  canUserSee,
  channelHistoryAccess,
} from "./context/visibility.js";
export type { HistoryAccess } from "./context/visibility.js";
export {
  CAPABILITIES,
  CapabilityError,
  capabilitiesAt,
  requireCapability,
  supports,
} from "./context/capabilities.js";
export type { Capability, CapabilityName } from "./context/capabilities.js";

// ---- Typed commands ---------------------------------------------------------------------------
export type {
  CommandSpec,
  CommandInfo,
  InvocationOf,
  Subcommand,
  SubcommandSpec,
  SubcommandContext,
} from "./commands/command.js";
export { subcommand } from "./commands/command.js";
export type { CommandInvocation, ChannelRef, TopicRef } from "./model/command.js";
export { arg, readTime, looksLikeTime } from "./commands/types.js";
export type {
  Arg,
  ArgLike,
  ArgsShape,
  ArgValue,
  ArgValues,
  DurationBounds,
  TimeBounds,
} from "./commands/types.js";
export { UsageError, tokenize } from "./commands/parse.js";
export { atLeast, CommandRateLimiter } from "./commands/guards.js";
export type { RateLimit } from "./commands/guards.js";
export { parseDuration, parseTime, formatDuration } from "./context/time.js";
export type { TimeReference } from "./context/time.js";

// ---- Writing chat Markdown safely -------------------------------------------------------------
export {
  TrustedMarkdown,
  raw,
  escapeText,
  code,
  codeBlock,
  mention,
  silentMention,
  md,
  inline,
  link,
  linkTarget,
} from "./markdown/escape.js";
export type { MentionedUser } from "./markdown/escape.js";

// ---- Running a bot ----------------------------------------------------------------------------
export { createBot } from "./bot/bot.js";
export type { Bot } from "./bot/bot.js";
export type { BotOptions, BotReload } from "./bot/options.js";
export type { HttpOptions, ServiceOptions } from "./bot/services.js";
export type { BotObserver, IgnoredReason } from "./model/observer.js";
export { loadConfig, loadConfigFile, ConfigError } from "./config/index.js";
export type { BotConfig } from "./config/index.js";
export { createLogger } from "./log/logger.js";
export type { Logger } from "./log/logger.js";
export { createStore, createMemoryStore, createFileStore } from "./state/key-value/index.js";
export type { KeyValueStore, StoreBackend, StorageConfig } from "./state/key-value/index.js";
export { createBotMetrics, observeCalls } from "./metrics/bot.js";
export type { BotMetrics } from "./metrics/bot.js";

// ---- Errors a bot meets -----------------------------------------------------------------------
export { PluginError } from "./dispatch/plugin-error.js";
export type { PluginErrorHandler, HandlerKind } from "./dispatch/plugin-error.js";
export {
  ApiError,
  NetworkError,
  InvalidArgumentError,
  MessageEditWindowError,
  MessageMoveWindowError,
  WidgetEditError,
} from "./client/errors.js";

// ---- The wire (events and messages as handlers see them) and the client's shape ----------------
export type { Message, AnyEvent, EventOf, MessageEvent } from "./api/index.js";
export type { ApiClient, CallOptions, ClientOptions } from "./client/client.js";

// ---- Webhooks and cron jobs a plugin registers ------------------------------------------------
export { WebhookError, WebhookResponse, respond } from "./webhooks/receiver.js";
export type { RouteOptions, WebhookHandler, WebhookRequest } from "./webhooks/receiver.js";
export type { RouteAuth } from "./webhooks/auth.js";
export type { OutgoingMessage } from "./webhooks/outgoing.js";
export { ManualSchedulerClock, CronExpressionError } from "./scheduler/index.js";
export type { CronJob, JobContext, ScheduledJob, SchedulerClock } from "./scheduler/index.js";
