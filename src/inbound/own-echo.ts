// Which events are only the bot's own doings coming back: its content edits and typing notices.
import type { AnyEvent } from "../api/events.js";

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
