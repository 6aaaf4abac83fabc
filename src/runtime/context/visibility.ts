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

/** `stream_post_policy` values that limit who may post (1 is everyone). */
const POST_POLICY_MAX_ROLE: Record<number, number> = { 2: 200, 4: 300 };

/**
 * Whether `userId` could post to channel `channelId` themselves, judged with what the bot can
 * read: an active user subscribed to it, or a member (not a guest) when the channel is public;
 * and within the channel's posting policy (administrators only, moderators only). A channel the
 * bot cannot see is a no. Check before posting for a user into a channel they named.
 *
 * @example
 * if (!(await canUserPostTo(ctx.api, ctx.sender.userId, channel.stream_id))) return ctx.reply("You can't post there.");
 */
export async function canUserPostTo(
  api: ApiClient,
  userId: number,
  channelId: number,
): Promise<boolean> {
  const [{ members }, { subscriptions }, { streams }] = await Promise.all([
    api.users.list({ user_ids: [userId] }),
    api.subscriptions.list({ include_subscribers: true }),
    api.channels.list({}),
  ]);
  const user = members.find((m) => m.user_id === userId);
  if (!user?.is_active) return false;
  const channel = streams.find((s) => s.stream_id === channelId);
  const own = subscriptions.find((s) => s.stream_id === channelId);
  if (!channel && !own) return false;
  const policy = (channel as { stream_post_policy?: number } | undefined)?.stream_post_policy;
  const maxRole = policy === undefined ? undefined : POST_POLICY_MAX_ROLE[policy];
  if (maxRole !== undefined && user.role > maxRole) return false;
  if (own?.subscribers?.includes(userId)) return true;
  if (user.role === GUEST) return false;
  return !(channel ?? own)!.invite_only;
}
