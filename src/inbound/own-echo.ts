// Which events are only the bot's own doings coming back (its content edits and typing notices), and whose ID is the bot's.
import type { AnyEvent } from "../api/events.js";
import type { ApiClient } from "../client/client.js";

/**
 * Whether `event` only echoes what the bot `me` did itself: an `update_message` of its own that
 * changes content and moves nothing (`user_id` is the editor; a topic or channel change is news
 * a bot follows), or its own `typing` notice. The server sends both to the bot's queue like to
 * anyone else's; they are still handed on, they only do not hurry the next poll.
 */
export function isOwnEcho(event: AnyEvent, me: number | undefined): boolean {
  if (me === undefined) return false;
  if (event.type === "update_message")
    return (
      event.user_id === me &&
      !("subject" in event) &&
      !("new_stream_id" in event) &&
      !("propagate_mode" in event)
    );
  if (event.type === "typing")
    return (event.sender as { user_id?: unknown } | undefined)?.user_id === me;
  return false;
}

/** The sender's ID of a message event sent from `client`'s own account (its email), if it is. */
export function ownId(event: AnyEvent, client: ApiClient): number | undefined {
  const m = event.message as { sender_email?: unknown; sender_id?: unknown } | undefined;
  return typeof m?.sender_email === "string" &&
    m.sender_email.toLowerCase() === client.email.toLowerCase() &&
    typeof m.sender_id === "number"
    ? m.sender_id
    : undefined;
}
