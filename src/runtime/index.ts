// The runtime: bots, plugins, context, middleware, routing, typed commands, sessions and actions.
export { createBot, DEFAULT_RATE_LIMIT } from "./bot.js";
export type { Bot, BotOptions } from "./bot.js";
export type { PluginApi, EventListener, CronOptions } from "./plugin-api.js";
export type { HttpOptions, ServiceOptions } from "./services.js";
export { definePlugin } from "./plugin.js";
export type { Plugin, PluginInstance } from "./plugin.js";
export { compose } from "./compose.js";
export type { Middleware, Next } from "./compose.js";
export type { MessageContext, Sender, AskOptions } from "./context.js";
export type { Conversation } from "./conversation.js";
export { conversationKey, conversationOf } from "./conversation.js";
export { address, stripLeadingMention } from "./gate.js";
export type { Addressing, BotIdentity } from "./gate.js";
export type { Handler, Filter, CommandContext, NoArgs } from "./router.js";
export type {
  CommandSpec,
  CommandInfo,
  CommandInvocation,
  InvocationOf,
} from "./commands/command.js";
export { arg } from "./commands/types.js";
export type {
  Arg,
  ArgLike,
  ArgsShape,
  ArgValue,
  ArgValues,
  ChannelRef,
  TopicRef,
} from "./commands/types.js";
export { UsageError, tokenize } from "./commands/parse.js";
export { atLeast, RateLimiter } from "./commands/guards.js";
export type { RateLimit } from "./commands/guards.js";
export { Directory } from "./directory.js";
export type { ChatUser } from "./directory.js";
export type { Session, SessionKind, SessionKindOptions } from "./session.js";
export { splitMessage } from "./actions.js";
export type { SentMessage, SendTarget, UserTarget } from "./actions.js";
export {
  CAPABILITIES,
  CapabilityError,
  capabilitiesAt,
  requireCapability,
  supports,
} from "./capabilities.js";
export type { Capability, CapabilityName } from "./capabilities.js";
export { parseDuration, parseTime, formatDuration } from "./time.js";
