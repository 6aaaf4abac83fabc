// When a handler throws: the log line, the count, and the reply the sender gets; and the debug line per handled message.
import { ApiError } from "../client/errors.js";
import { describeHandlerFailure } from "../log/handler-failure.js";
import type { Logger } from "../log/logger.js";
import { code } from "../markdown/escape.js";
import type { Quarantine } from "../state/quarantine.js";
import { formatMs, HandlerTimeoutError } from "./time-limit.js";
import type { MessageContext } from "../context/context.js";
import type { HandlerOrigin } from "./router.js";
import { LoopGuardError } from "../outbound/loop-guard.js";
import { DeliveryFencedError } from "../state/delivery/store.js";
import type { MessageOutcomes } from "./handling.js";
import type { HandledReporter, HandlerErrorReporter } from "./router.js";

/**
 * A handler threw: logged with its plugin, and the sender told as the handler chose (see
 * ListenerOptions.errorReply). An action the server refused is logged as one line with its
 * endpoint and code, and by default gets no reply from a listener (only from a command).
 * `errorReply` is the bot's own choice (`createBot({ errorReply })`).
 */
export function handlerErrorReporter(
  log: Logger,
  outside: Pick<MessageOutcomes, "failed">,
  errorReply: string | false,
  quarantine?: Pick<Quarantine, "failed">,
): HandlerErrorReporter {
  return async (error, ctx, origin) => {
    outside.failed(ctx);
    // The guard logged why, once; an error reply would only be refused as well.
    if (error instanceof LoopGuardError) return;
    // Cluster mode: this node lost the message's partition; its new owner handles it.
    if (error instanceof DeliveryFencedError)
      return log.info({ messageId: ctx.message.id }, error.message);
    if (error instanceof HandlerTimeoutError)
      return reportTimeout(error, ctx, origin, log, quarantine);
    const refused = error instanceof ApiError;
    const handler = ctx.command ? `command ${ctx.command.name}` : "handler";
    void quarantine
      ?.failed(ctx.message.id, origin.plugin, handler, firstLine(error))
      .catch((e: unknown) => log.warn({ err: e }, "could not count a handler failure"));
    const failure = describeHandlerFailure(error, origin.plugin, handler, ctx.message.id);
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
