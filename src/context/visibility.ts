// Whether a user can see a message, by the server's access rules: the check before acting on a message ID for them.
import type { ApiClient } from "../client/client.js";
import { ApiError } from "../client/errors.js";
import { guestsSeeEveryoneOn } from "./userAccess.js";

/** The server's role number for guests. */
const GUEST = 600;

/**
 * How much of a channel's history a user can read, by the server's rules:
 *
 * - `"all"`: every message (a subscriber where history is shared with subscribers; any member,
 *   not a guest, in a public channel);
 * - `"received"`: only the messages they received while subscribed (a subscriber of a private
 *   channel with protected history, `history_public_to_subscribers: false`);
 * - `"none"`: nothing (a guest not subscribed, a non-subscriber of a private channel, a
 *   deactivated user, a channel the bot cannot see).
 *
 * The API does not tell the bot which messages another user received (when they joined), so for
 * `"received"` a caller can vouch only for messages the user sent themselves.
 */
export type HistoryAccess = "all" | "received" | "none";

/** How much of channel `channelId`'s history `userId` can read (see `HistoryAccess`). */
export async function channelHistoryAccess(
  api: ApiClient,
  userId: number,
  channelId: number,
): Promise<HistoryAccess> {
  const [{ members }, { subscriptions }] = await Promise.all([
    api.users.list({ user_ids: [userId] }),
    api.subscriptions.list({ include_subscribers: true }),
  ]);
  const user = members.find((m) => m.user_id === userId);
  if (!user?.is_active) return "none";
  // The bot's own subscription lists the channel's subscribers; it has one for most messages it sees.
  const own = subscriptions.find((s) => s.stream_id === channelId);
  if (own?.subscribers?.includes(userId)) {
    // A public channel's history is always public; a private one's is unless it says otherwise.
    const shared = own.invite_only === false || own.history_public_to_subscribers === true;
    return shared ? "all" : "received";
  }
  if (user.role === GUEST) return "none";
  if (own?.subscribers) return own.invite_only ? "none" : "all";
  const { streams } = await api.channels.list({});
  const channel = streams.find((s) => s.stream_id === channelId);
  // A public channel is open to every member; a private one the bot is not in, we cannot vouch for.
  return channel !== undefined && !channel.invite_only ? "all" : "none";
}

/**
 * Whether `userId` can see message `messageId`, judged with what the bot can read:
 *
 * - a direct message: only its participants;
 * - a channel message: subscribers of the channel; other members and admins too when the channel
 *   is public; guests only when subscribed;
 * - in a private channel with protected history, only a subscriber who received the message.
 *   The bot cannot tell when another user joined, so there it vouches only for the user's own
 *   messages: a "no" for the rest, never a "yes" the server would not give;
 * - a message the bot itself cannot fetch (or a deactivated user): no.
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
  const access = await channelHistoryAccess(api, userId, streamId);
  return access === "all" || (access === "received" && message.sender_id === userId);
}

/**
 * Whether `viewerId` can see user `targetId` (their name, their profile), by the server's user
 * access rule: members see everyone; a guest too when the realm's `can_access_all_users_group`
 * is `role:everyone` (known for a bot's own `ctx.api`; else pass `guestsSeeEveryone`); otherwise a guest
 * sees themselves, bots, and the users they share a channel or a DM with. The bot cannot read
 * another user's DMs, so there it vouches only for themselves, bots and users subscribed to a
 * channel the guest is subscribed to too (among the channels the bot is in). Check before acting
 * on a user a guest named; give the same answer as for an unknown user, so a guest cannot learn
 * who exists.
 *
 * @example
 * if (!(await canUserAccessUser(ctx.api, ctx.sender.userId, user.user_id))) return ctx.reply("I don't know that user.");
 */
export async function canUserAccessUser(
  api: ApiClient,
  viewerId: number,
  targetId: number,
  options: { guestsSeeEveryone?: boolean } = {},
): Promise<boolean> {
  const { members } = await api.users.list({ user_ids: [viewerId, targetId] });
  const viewer = members.find((m) => m.user_id === viewerId);
  if (!viewer?.is_active) return false;
  const guestsSeeEveryone = options.guestsSeeEveryone ?? guestsSeeEveryoneOn(api);
  if (viewerId === targetId || viewer.role !== GUEST || guestsSeeEveryone) return true;
  if (members.find((m) => m.user_id === targetId)?.is_bot) return true;
  return sharesChannel(api, viewerId, targetId);
}

/** Whether users `a` and `b` are both subscribed to one channel the bot is in. */
export async function sharesChannel(api: ApiClient, a: number, b: number): Promise<boolean> {
  const { subscriptions } = await api.subscriptions.list({ include_subscribers: true });
  return subscriptions.some((s) => s.subscribers?.includes(a) && s.subscribers.includes(b));
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
