// How a failed handler is told: one log line naming plugin, handler, action and the server's code, and a reply saying what failed.
import { ApiError } from "../client/errors.js";

/** A handler that threw while handling a message, described for the log and for the sender. */
export interface HandlerFailure {
  /** The log line's fields (no stack trace when the server refused an action: it is not a bug here). */
  fields: Record<string, unknown>;
  message: string;
  /** Appended to the error reply: what failed, when the server said so. */
  replyDetail: string | undefined;
}

/**
 * Describes a handler's failure. An action the server refused (an ApiError) is one line with the
 * endpoint, `code` and the server's message; anything else keeps its error (and stack) for debugging.
 *
 * @example
 * const { fields, message } = describeHandlerFailure(error, "ping", "command ping", 42);
 * log.error(fields, message);
 */
export function describeHandlerFailure(
  error: unknown,
  plugin: string,
  handler: string,
  messageId: number,
): HandlerFailure {
  if (error instanceof ApiError) {
    return {
      fields: {
        plugin,
        handler,
        action: error.endpoint,
        code: error.code,
        status: error.status,
        messageId,
      },
      message: `plugin "${plugin}" ${handler}: the server refused ${error.endpoint}: ${error.code}: ${error.msg}`,
      replyDetail: `the server refused ${error.endpoint}: ${error.msg} (${error.code})`,
    };
  }
  return {
    fields: { err: error, plugin, handler, messageId },
    message: `plugin "${plugin}" failed handling message ${messageId}`,
    replyDetail: undefined,
  };
}
