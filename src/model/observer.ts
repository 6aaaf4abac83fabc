// What the bot tells an onlooker (the `bot dev --web` console): each event it receives and why a message got no handler.
import type { AnyEvent } from "../api/events.js";

/** Why the bot did not run a handler for a message (it may still have answered, e.g. "did you mean"). */
export type IgnoredReason =
  | { reason: "not-addressed" }
  | { reason: "rate-limited"; retryInMs: number }
  | { reason: "unknown-command"; word?: string; reply: string }
  | { reason: "role-refused"; command: string; role?: string; reply: string }
  | { reason: "usage"; command: string; reply: string };

/**
 * Callbacks the bot calls as it works; each is optional and must not throw (errors are ignored).
 *
 * @example
 * createBot({ server, observer: { ignored: (id, why) => console.log(id, why.reason) } });
 */
export interface BotObserver {
  /** Every event the bot received from its queue, before it is handled. */
  event?(event: AnyEvent): void;
  /** A message (not the bot's own) that no handler ran for, and why. */
  ignored?(messageId: number, why: IgnoredReason): void;
  /**
   * How many calls of handlers with an overlap strategy run now, told on each change (those calls
   * run after the pipeline returned; the test harness waits for them).
   */
  overlapCalls?(running: number): void;
}

/** Calls one observer callback, swallowing what it throws: watching never breaks the bot. */
export function notify<A extends unknown[]>(
  callback: ((...args: A) => void) | undefined,
  ...args: A
): void {
  try {
    callback?.(...args);
  } catch {
    // an onlooker's failure is not the bot's
  }
}
