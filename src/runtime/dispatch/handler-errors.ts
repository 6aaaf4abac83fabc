// When a handler throws: the log line, the count, and the reply the sender gets; and the debug line per handled message.
import { ApiError } from "../../client/errors.js";
import { describeHandlerFailure } from "../../log/handler-failure.js";
import type { Logger } from "../../log/logger.js";
import { LoopGuardError } from "../delivery/loop-guard.js";
import { DeliveryFencedError } from "../delivery/store.js";
import type { BotServices } from "../services.js";
import type { HandledReporter, HandlerErrorReporter } from "./router.js";

/**
 * A handler threw: logged with its plugin, and the sender told as the handler chose (see
 * ListenerOptions.errorReply). An action the server refused is logged as one line with its
 * endpoint and code, and by default gets no reply from a listener (only from a command).
 * `errorReply` is the bot's own choice (`createBot({ errorReply })`).
 */
export function handlerErrorReporter(
  log: Logger,
  outside: Pick<BotServices, "failed">,
  errorReply: string | false,
): HandlerErrorReporter {
  return async (error, ctx, origin) => {
    outside.failed(ctx);
    // The guard logged why, once; an error reply would only be refused as well.
    if (error instanceof LoopGuardError) return;
    // Cluster mode: this node lost the message's partition; its new owner handles it.
    if (error instanceof DeliveryFencedError)
      return log.info({ messageId: ctx.message.id }, error.message);
    const refused = error instanceof ApiError;
    const handler = ctx.command ? `command ${ctx.command.name}` : "handler";
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
