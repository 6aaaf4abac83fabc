// When a handler throws: the log line, the count, and the reply the sender gets; and the debug line per handled message.
import { ApprovalPendingError } from "../model/cards.js";
import { ApiError } from "../client/errors.js";
import { describeHandlerFailure } from "../log/handler-failure.js";
import type { Logger } from "../log/logger.js";
import { code } from "../markdown/escape.js";
import type { Quarantine } from "../state/quarantine.js";
import { formatMs, HandlerTimeoutError } from "./time-limit.js";
import { LoopGuardError } from "../outbound/loop-guard.js";
import { DeliveryFencedError } from "../state/delivery/store.js";
import type { MessageOutcomes } from "./handling.js";
import type { HandledReporter, HandlerErrorReporter } from "./router.js";
import type { Middleware } from "./compose.js";
import type { MessageContext } from "../context/context.js";
import { PluginError, type HandlerOrigin, type PluginErrorHandler } from "./plugin-error.js";

/**
 * A handler threw and no middleware caught it: counted as failed, then given to `caught()` (the
 * handler `bot.catch` registered) if there is one, else reported as the default does: logged with
 * its plugin, and the sender told as the handler chose (see ListenerOptions.errorReply). An
 * action the server refused is logged as one line with its endpoint and code, and by default gets
 * no reply from a listener (only from a command). `errorReply` is the bot's own choice
 * (`createBot({ errorReply })`). A `bot.catch` handler that throws is logged, and the default
 * report runs after all.
 */
export function handlerErrorReporter(
  log: Logger,
  outside: Pick<MessageOutcomes, "failed">,
  errorReply: string | false,
  caught: () => PluginErrorHandler | undefined,
  quarantine?: Pick<Quarantine, "failed">,
): HandlerErrorReporter {
  const report = async (error: PluginError): Promise<void> => {
    const { ctx, origin, cause } = error;
    // The guard logged why, once; an error reply would only be refused as well.
    if (cause instanceof LoopGuardError) return;
    // Cluster mode: this node lost the message's partition; its new owner handles it.
    if (cause instanceof DeliveryFencedError)
      return log.info({ messageId: ctx.message.id }, cause.message);
    // The bot stopped while the handler waited for an approval: its decision runs it again.
    if (cause instanceof ApprovalPendingError)
      return log.info({ messageId: ctx.message.id }, cause.message);
    if (cause instanceof HandlerTimeoutError)
      return reportTimeout(cause, ctx, origin, log, quarantine);
    const refused = cause instanceof ApiError;
    const handler = ctx.command ? `command ${ctx.command.name}` : "handler";
    void quarantine
      ?.failed(ctx.message.id, origin.plugin, handler, firstLine(cause))
      .catch((e: unknown) => log.warn({ err: e }, "could not count a handler failure"));
    const failure = describeHandlerFailure(cause, origin.plugin, handler, ctx.message.id);
    log.error(failure.fields, failure.message);
    // A listener's action the server refused is logged only, unless the listener asks otherwise.
    const choice = origin.errorReply ?? (origin.kind !== "listener" || !refused);
    const text = choice === true ? errorReply : choice;
    if (text === false) return;
    await ctx
      .reply(failure.replyDetail && choice === true ? `${text} (${failure.replyDetail})` : text)
      .catch((replyError: unknown) =>
        log.warn({ err: replyError }, "could not send the error reply"),
      );
  };
  return async (error) => {
    outside.failed(error.ctx);
    const handler = caught();
    if (handler === undefined) return report(error);
    try {
      await handler(error);
    } catch (thrown) {
      log.error(
        { err: thrown, plugin: error.plugin, messageId: error.messageId },
        "the bot.catch handler threw",
      );
      await report(error);
    }
  };
}

/**
 * The middleware that ends a PluginError's way up the chain: what no middleware caught goes to
 * `report` (see `handlerErrorReporter`), and the message counts as handled; other errors go on.
 */
export function pluginErrorCatcher(report: HandlerErrorReporter): Middleware<MessageContext> {
  const onError = (error: unknown): void | Promise<void> => {
    if (error instanceof PluginError) return report(error);
    throw error;
  };
  return (_ctx, next) => next().catch(onError);
}

/** With `LOG_LEVEL=debug`, one line per handled message: plugin, handler and duration. */
export function handledLogger(log: Logger): HandledReporter | undefined {
  if (!log.isLevelEnabled?.("debug")) return undefined;
  return (ctx, { plugin, kind, ms }) =>
    log.debug(
      {
        messageId: ctx.message.id,
        plugin,
        handler: ctx.command ? `command ${ctx.command.name}` : kind,
        durationMs: Math.round(ms * 1000) / 1000,
      },
      `handled message ${ctx.message.id}`,
    );
}

/** The first line of an error's message, for the dead-letter list. */
const firstLine = (error: unknown): string =>
  (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).split("\n")[0]!;

/**
 * A handler ran past its time limit: logged with plugin and handler, counted towards quarantine
 * (unless its half-time mark counted it), and its sender told (unless the handler chose no error
 * reply). The handler's slot is already free: the router stopped waiting for it.
 */
async function reportTimeout(
  error: HandlerTimeoutError,
  ctx: MessageContext,
  origin: HandlerOrigin,
  log: Logger,
  quarantine: Pick<Quarantine, "failed"> | undefined,
): Promise<void> {
  const { plugin, handler, limitMs, messageId } = error;
  log.error({ plugin, handler, messageId, limitMs }, error.message);
  if (!error.counted)
    void quarantine
      ?.failed(messageId, plugin, handler, `ran past its time limit of ${formatMs(limitMs)}`)
      .catch((e: unknown) => log.warn({ err: e }, "could not count a handler failure"));
  if (origin.errorReply === false) return;
  const what = ctx.command ? code(ctx.command.name) : "handling your message";
  await ctx
    .reply(
      `Sorry, ${what} took longer than its time limit (${formatMs(limitMs)}) and was stopped. The error has been logged.`,
    )
    .catch((replyError: unknown) =>
      log.warn({ err: replyError }, "could not tell the sender of a handler that timed out"),
    );
}
