// How a bot ends: failures that end it (at start or later) in words that say what to check, and the bounded waits of its stop.
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

/**
 * Lets a stopping bot's handlers finish within `timeoutMs`: the dispatcher idle, then (open
 * questions ended unanswered, so the handlers waiting on them can finish) every pipeline ended.
 * False when the time ran out first.
 */
export async function drain(
  parts: { idle(): Promise<void>; cancelQuestions(): void; pipelinesEnded(): Promise<void> },
  timeoutMs: number,
  now: () => number,
): Promise<boolean> {
  const deadline = now() + timeoutMs;
  const idle = await within(parts.idle(), timeoutMs);
  parts.cancelQuestions();
  return idle && (await within(parts.pipelinesEnded(), Math.max(0, deadline - now())));
}

/** Resolves true when `work` finished within `ms`, false when the time ran out first. */
export async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
