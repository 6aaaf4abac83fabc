// Whether a user can see a message, by the server's access rules: the check before acting on a message ID for them.
import type { ApiClient } from "../../client/client.js";
import { ApiError } from "../../client/errors.js";

/** The server's role number for guests. */
const GUEST = 600;

/**
 * Whether `userId` can see message `messageId`, judged with what the bot can read:
 *
 * - a direct message: only its participants;
 * - a channel message: subscribers of the channel; other members and admins too when the channel
 *   is public; guests only when subscribed;
 * - a message the bot itself cannot fetch (or a deactivated user): no.
 *
 * Limit: in a private channel whose history is not shared with new subscribers, the server also
 * hides messages sent before a subscriber joined; the bot cannot tell when that was, so a
 * subscriber counts as seeing them.
 *
 * @example
 * if (!(await canUserSee(ctx.api, ctx.sender.userId, id))) return ctx.reply("You can't see that message.");
 */
export async function canUserSee(
  api: ApiClient,
  userId: number,
  messageId: number,
): Promise<boolean> {
  let message;
  try {
    ({ message } = await api.messages.get({ message_id: messageId, apply_markdown: false }));
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) return false;
    throw error;
  }
  if (message.type === "private") {
    const recipients = Array.isArray(message.display_recipient) ? message.display_recipient : [];
    return recipients.some((r) => r.id === userId);
  }
  const streamId = message.stream_id;
  if (streamId === undefined) return false;
  const [{ members }, { subscriptions }] = await Promise.all([
    api.users.list({ user_ids: [userId] }),
    api.subscriptions.list({ include_subscribers: true }),
  ]);
  const user = members.find((m) => m.user_id === userId);
  if (!user?.is_active) return false;
  // The bot's own subscription lists the channel's subscribers; it has one for most messages it sees.
  const own = subscriptions.find((s) => s.stream_id === streamId);
  if (own?.subscribers?.includes(userId)) return true;
  if (user.role === GUEST) return false;
  if (own?.subscribers) return !own.invite_only;
  const { streams } = await api.channels.list({});
  const channel = streams.find((s) => s.stream_id === streamId);
  // A public channel is open to every member; a private one the bot is not in, we cannot vouch for.
  return channel !== undefined && !channel.invite_only;
}
