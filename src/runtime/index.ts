// The runtime: bots, plugins, context, middleware and routing.
export { createBot } from "./bot.js";
export type { Bot, BotOptions, PluginApi, EventListener } from "./bot.js";
export { definePlugin } from "./plugin.js";
export type { Plugin, PluginInstance } from "./plugin.js";
export { compose } from "./compose.js";
export type { Middleware, Next } from "./compose.js";
export type { MessageContext, Sender, CommandInvocation, SentMessage } from "./context.js";
export type { Conversation } from "./conversation.js";
export { conversationKey, conversationOf } from "./conversation.js";
export { address, stripLeadingMention } from "./gate.js";
export type { Addressing, BotIdentity } from "./gate.js";
export type { CommandSpec, CommandInfo, Handler, Filter } from "./router.js";
