// PluginError: what a handler threw, with where (plugin, handler, message and its context), as middleware and `bot.catch` see it.
import type { MessageContext } from "../context/context.js";

/** Which tier of the routing order a handler belongs to. */
export type HandlerKind = "command" | "followed" | "listener" | "builtin";

/** Where a handler came from, for error reports. */
export interface HandlerOrigin {
  plugin: string;
  kind: HandlerKind;
  /** The handler's own choice of error reply, if it made one (see ListenerOptions). */
  errorReply?: string | boolean;
}

/**
 * A handler threw (or rejected). The router throws this up the middleware chain, so a middleware
 * around `await next()` can catch it; one nobody catches goes to `bot.catch`'s handler, else to the
 * default (a log line and the failure reply). `cause` is what the handler threw.
 *
 * @example
 * bot.use(async (ctx, next) => {
 *   try { await next(); } catch (error) {
 *     if (error instanceof PluginError && error.plugin === "flaky") return ctx.reply("Try again later.");
 *     throw error;
 *   }
 * });
 */
export class PluginError extends Error {
  /** The plugin whose handler threw (`bot` for the bot's own registrations). */
  readonly plugin: string;
  /** Which handler: `command <name>`, or its tier (`listener`, `followed`, `builtin`). */
  readonly handler: string;
  /** The ID of the message being handled. */
  readonly messageId: number;
  /** The message's context, to answer or inspect. */
  readonly ctx: MessageContext;
  /** The handler's plugin, tier and error-reply choice. */
  readonly origin: HandlerOrigin;

  constructor(cause: unknown, ctx: MessageContext, origin: HandlerOrigin) {
    const handler = ctx.command ? `command ${ctx.command.name}` : origin.kind;
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`plugin ${origin.plugin}: ${handler} failed on message ${ctx.message.id}: ${why}`, {
      cause,
    });
    this.name = "PluginError";
    this.plugin = origin.plugin;
    this.handler = handler;
    this.messageId = ctx.message.id;
    this.ctx = ctx;
    this.origin = origin;
  }
}

/** What `bot.catch` registers: told of each handler error no middleware caught. */
export type PluginErrorHandler = (error: PluginError) => unknown;
