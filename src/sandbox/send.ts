// Sending a message as the server does: limits, the topic rule, wildcard mentions, topic visibility policies.
import { NO_TOPIC } from "../api/common.js";
import { badRequest, SandboxError } from "./errors.js";
import type { RealmState } from "./realmState.js";
import type { Channel, SandboxUser, StoredMessage } from "./model.js";
import { findUserByEmail } from "./emailVisibility.js";
import type { WidgetContent } from "./widgets.js";
import { findWildcards } from "./markdown.js";

/** The topic rule: `(no topic)` and the realm's empty-topic display name mean the empty string. */
export function normalizeTopic(realm: RealmState, topic: string): string {
  const trimmed = topic.trim();
  return trimmed === NO_TOPIC || trimmed === realm.settings.emptyTopicDisplayName ? "" : trimmed;
}

/** The server's `truncate_content`: over `max` characters, cut and end with `marker` (`max` in all). */
function truncated(text: string, max: number, marker: string): string {
  // No more UTF-16 units than `max` is no more characters either: nothing to cut, nothing to count.
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length > max ? chars.slice(0, max - marker.length).join("") + marker : text;
}

/** A control character or a lone surrogate (a pair is one character of another category). */
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;

/** Position (1-based) of the first control or lone surrogate character, the server's `check_string_is_printable`. */
function unprintableAt(text: string): number | undefined {
  // One pass over the text first: the position is counted only when there is one to report.
  if (!UNPRINTABLE.test(text)) return undefined;
  const at = [...text].findIndex((c) => UNPRINTABLE.test(c));
  return at === -1 ? undefined : at + 1;
}

/**
 * A channel message's topic as the server stores it: stripped, the topic rule applied, not
 * empty, no control characters, and cut to the realm's maximum with `...` (not refused).
 */
export function checkedTopic(realm: RealmState, topic: string): string {
  const normalized = normalizeTopic(realm, topic);
  if (normalized === "") throw badRequest("Topic can't be empty!");
  const bad = unprintableAt(normalized);
  if (bad !== undefined) throw badRequest(`Invalid character in topic, at position ${bad}!`);
  return truncated(normalized, realm.settings.maxTopicLength, "...");
}

/**
 * Message content as the server stores it (`normalize_body`): trailing whitespace and leading
 * blank lines stripped, refused when empty or holding a null byte, and cut to the realm's maximum
 * with a `[message truncated]` line (not refused).
 */
export function normalizedContent(realm: RealmState, content: string): string {
  const body = content.trimEnd().replace(/^\n+/, "");
  if (body === "") throw badRequest("Message must not be empty");
  if (body.includes("\0")) throw badRequest("Message must not contain null bytes");
  return truncated(body, realm.settings.maxMessageLength, "\n[message truncated]");
}

/** Distinct senders of a topic so far (a copy: the index's set grows with the message being sent). */
const topicParticipants = (realm: RealmState, channel: Channel, topic: string): Set<number> =>
  new Set(realm.index.participants(channel.streamId, topic));

/** Which wildcard mentions the content makes, refused when the sender may not mention that many. */
function wildcards(
  realm: RealmState,
  sender: SandboxUser,
  channel: Channel,
  topic: string,
  content: string,
): { channel: boolean; topic: boolean } {
  const { wildcardMentionThreshold: threshold, wildcardMentionMinRole: minRole } = realm.settings;
  const allowed = sender.role <= minRole;
  const found = findWildcards(content);
  if (found.channel && !allowed && channel.subscribers.size > threshold) {
    throw new SandboxError(
      "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
      "You do not have permission to use channel wildcard mentions in this channel.",
    );
  }
  if (found.topic && !allowed && topicParticipants(realm, channel, topic).size > threshold) {
    throw new SandboxError(
      "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
      "You do not have permission to use topic wildcard mentions in this topic.",
    );
  }
  return found;
}

/** Clients whose users send by hand (the web app, the mobile, desktop and terminal apps). */
const HUMAN_CLIENTS = new Set([
  "zulipandroid",
  "zulipios",
  "zulipdesktop",
  "zulipmobile",
  "zulipelectron",
  "zulipterminal",
  "snipe",
  "website",
  "ios",
  "android",
]);

/** How many User-Agent headers `clientNameOf` remembers before it starts afresh. */
const RECENT_USER_AGENTS = 256;

/**
 * Client names of the User-Agents seen lately. A fast path: a client sends the same header on
 * every request, and the name is read from it with a regular expression. Bounded, so headers
 * made up per request cannot grow it without end.
 */
const recentClientNames = new Map<string, string>();

/** The client name the server records: the User-Agent's product name, `Unspecified` without one. */
export function clientNameOf(userAgent: string | undefined): string {
  const key = userAgent ?? "";
  let name = recentClientNames.get(key);
  if (name === undefined) {
    name = /^([^/ ]*[^0-9/(]*)/.exec(key)?.[1]?.trim() || "Unspecified";
    if (recentClientNames.size >= RECENT_USER_AGENTS) recentClientNames.clear();
    recentClientNames.set(key, name);
  }
  return name;
}

/**
 * The server's heuristic when `read_by_sender` is absent: a message starts as read for its
 * sender only when sent from a client people type into, not from bots, scripts or integrations.
 */
export function defaultReadBySender(clientName: string): boolean {
  const name = clientName.toLowerCase();
  return HUMAN_CLIENTS.has(name) || name.includes("desktop app");
}

const FOLLOWED = 3;
const UNMUTED = 2;

/**
 * The sender's topic policy after sending, per `automatically_follow_topics_policy` (3: topics
 * they start, 2: topics they send to) and the unmute policy for muted channels; undefined if unchanged.
 */
function newVisibilityPolicy(
  realm: RealmState,
  sender: SandboxUser,
  channel: Channel,
  topic: string,
  startsTopic: boolean,
): number | undefined {
  const current = realm.topicPolicy(sender.userId, channel.streamId, topic);
  const applies = (policy: number): boolean =>
    policy === 1 || policy === 2 || (policy === 3 && startsTopic);
  if (applies(sender.followTopicsPolicy ?? 3) && current !== FOLLOWED) return FOLLOWED;
  const muted = realm.subscriptionProperties.isMuted(sender.userId, channel.streamId);
  if (
    muted &&
    applies(sender.unmuteTopicsPolicy ?? 2) &&
    current !== UNMUTED &&
    current !== FOLLOWED
  )
    return UNMUTED;
  return undefined;
}

/**
 * Whether `sender` may post to `channel`, as the server's `access_stream_for_send_message`: a
 * subscriber, anyone in a public channel (but guests), or a bot whose owner is subscribed.
 */
function mayPostTo(sender: SandboxUser, channel: Channel): boolean {
  if (channel.subscribers.has(sender.userId)) return true;
  if (!channel.inviteOnly && sender.role !== 600) return true;
  return sender.isBot && sender.botOwnerId !== null && channel.subscribers.has(sender.botOwnerId);
}

export interface ChannelSend {
  sender: SandboxUser;
  channel: Channel;
  topic: string;
  content: string;
  /** The sending client's name (default `Internal`, as the server's own notices). */
  client?: string;
  readBySender?: boolean;
  localEcho?: { queueId: string; localId: string };
  /** A checked `widget_content`. */
  widget?: WidgetContent;
}

/** Posts a channel message (topic already checked); returns it with any automatic policy change. */
export function sendToChannel(
  realm: RealmState,
  init: ChannelSend,
): { message: StoredMessage; automaticPolicy?: number } {
  const { sender, channel, topic } = init;
  if (!mayPostTo(sender, channel))
    throw badRequest(`Not authorized to send to channel '${channel.name}'`);
  const content = normalizedContent(realm, init.content);
  const found = wildcards(realm, sender, channel, topic, content);
  const startsTopic = realm.index.participants(channel.streamId, topic).size === 0;
  // Only a topic wildcard needs to know who took part before this message.
  const participants = found.topic ? topicParticipants(realm, channel, topic) : undefined;
  const policy = newVisibilityPolicy(realm, sender, channel, topic, startsTopic);
  const message = realm.postMessage({
    sender,
    kind: "stream",
    channel,
    topic,
    content,
    widget: init.widget,
    client: init.client ?? "Internal",
    readBySender: init.readBySender ?? defaultReadBySender(init.client ?? "Internal"),
    localEcho: init.localEcho,
    extraFlags:
      found.channel || found.topic
        ? (userId) => [
            ...(found.channel ? ["stream_wildcard_mentioned"] : []),
            ...(participants?.has(userId) || (found.topic && userId === sender.userId)
              ? ["topic_wildcard_mentioned"]
              : []),
          ]
        : undefined,
    beforeDelivery: () => {
      if (policy === undefined) return;
      realm.setTopicPolicy(sender.userId, channel.streamId, topic, policy);
      realm.pushEvent([sender.userId], {
        type: "user_topic",
        stream_id: channel.streamId,
        topic_name: topic,
        last_updated: realm.nowSeconds(),
        visibility_policy: policy,
      });
    },
  });
  return { message, automaticPolicy: policy };
}

/** DM recipients given as IDs or emails (API emails, or real ones `sender` may see), resolved to active users. */
export function resolveRecipients(
  realm: RealmState,
  sender: SandboxUser,
  to: readonly (string | number)[],
): SandboxUser[] {
  return to.map((item) => {
    const user =
      typeof item === "number" ? realm.users.get(item) : findUserByEmail(realm, sender, item);
    if (!user || !user.isActive)
      throw badRequest(
        typeof item === "number" ? `Invalid user ID ${item}` : `Invalid email '${item}'`,
      );
    return user;
  });
}

/** Posts a direct message. */
export function sendDirect(
  realm: RealmState,
  init: {
    sender: SandboxUser;
    recipients: SandboxUser[];
    content: string;
    client?: string;
    readBySender?: boolean;
    localEcho?: { queueId: string; localId: string };
    widget?: WidgetContent;
  },
): StoredMessage {
  return realm.postMessage({
    sender: init.sender,
    kind: "private",
    recipients: init.recipients.map((r) => r.userId),
    content: normalizedContent(realm, init.content),
    widget: init.widget,
    client: init.client ?? "Internal",
    readBySender: init.readBySender ?? defaultReadBySender(init.client ?? "Internal"),
    localEcho: init.localEcho,
  });
}
