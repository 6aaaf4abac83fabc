// The runtime: bots, plugins, context, middleware, routing, typed commands, sessions and actions.
export { createBot, DEFAULT_RATE_LIMIT } from "./bot.js";
export type { Bot } from "./bot.js";
export type { BotOptions, MessageHandling } from "./options.js";
export type { BotObserver, IgnoredReason } from "../model/observer.js";
export type { PluginApi, EventListener, CronOptions } from "./plugin-api.js";
export type { HttpOptions, ServiceOptions } from "./services.js";
export { definePlugin } from "./plugin.js";
export { PluginError } from "../dispatch/plugin-error.js";
export type { PluginErrorHandler, HandlerKind, HandlerOrigin } from "../dispatch/plugin-error.js";
export type { Plugin, PluginInstance } from "./plugin.js";
export { compose } from "../dispatch/compose.js";
export type { Middleware, Next } from "../dispatch/compose.js";
export { MessageContextObject } from "../context/context.js";
export type { MessageContext } from "../context/context.js";
export type { Sender, AskOptions } from "../context/context.js";
export { pollContent, todoContent } from "../context/widgets.js";
export type { Conversation } from "../model/conversation.js";
export { conversationKey, conversationOf } from "../model/conversation.js";
export { address, stripLeadingMention } from "../dispatch/gate.js";
export type { RespondTo } from "../dispatch/gate.js";
export type { Addressing, BotAccount, BotIdentity } from "../model/account.js";
export type {
  Handler,
  Filter,
  CommandContext,
  NoArgs,
  ListenerOptions,
} from "../dispatch/router.js";
export type {
  CommandSpec,
  CommandInfo,
  InvocationOf,
  Subcommand,
  SubcommandSpec,
  SubcommandContext,
} from "../commands/command.js";
export { subcommand } from "../commands/command.js";
export type { CommandInvocation, ChannelRef, TopicRef } from "../model/command.js";
export { arg, readTime, looksLikeTime } from "../commands/types.js";
export type {
  Arg,
  ArgLike,
  ArgsShape,
  ArgValue,
  ArgValues,
  DurationBounds,
  TimeBounds,
} from "../commands/types.js";
export { UsageError, tokenize } from "../commands/parse.js";
export { atLeast, RateLimiter } from "../commands/guards.js";
export type { RateLimit } from "../commands/guards.js";
export { AmbiguousNameError, Directory } from "../context/directory.js";
export type { ChatUser, UserLookup } from "../context/directory.js";
export type { Session, SessionKind, SessionKindOptions } from "../context/session.js";
export { splitMessage } from "../context/actions.js";
export {
  canUserAccessUser,
  canUserPostTo,
  canUserSee,
  channelHistoryAccess,
} from "../context/visibility.js";
export type { HistoryAccess } from "../context/visibility.js";
export type {
  EditChanges,
  SentMessage,
  SendTarget,
  UserTarget,
  Widget,
} from "../context/actions.js";
export type { MessageRef } from "../context/chat-actions.js";
export {
  CAPABILITIES,
  CapabilityError,
  capabilitiesAt,
  requireCapability,
  supports,
} from "../context/capabilities.js";
export type { Capability, CapabilityName } from "../context/capabilities.js";
export { parseDuration, parseTime, formatDuration, TIME_LIMITS } from "../context/time.js";
export type { TimeReference } from "../context/time.js";
export { OverlapController } from "../dispatch/overlap.js";
export type { OverlapCall, OverlapOutcome } from "../dispatch/overlap.js";
export type { Overlap, OverlapMode, OverlapStrategy } from "../model/overlap.js";
