// Failures that end a bot (at start or later, from the event loop) in words that say what to check.
import { ApiError } from "../client/errors.js";

/** Failures that end the bot (at start or later), in words that say what to check. */
export function describeFatal(error: unknown, site: string): Error {
  if (!(error instanceof ApiError))
    return error instanceof Error ? error : new Error(String(error));
  const what =
    error.code === "USER_DEACTIVATED"
      ? `the bot's account was deactivated (USER_DEACTIVATED); reactivate it on ${site}`
      : error.code === "REALM_DEACTIVATED"
        ? `the organization at ${site} was deactivated (REALM_DEACTIVATED)`
        : error.code === "INVALID_API_KEY" || error.status === 401
          ? `the server at ${site} refused the bot's credentials (${error.code}); check server.email and server.apiKey`
          : undefined;
  return what === undefined ? error : new Error(what, { cause: error });
}
