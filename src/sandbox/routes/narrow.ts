// Sandbox routes over narrows: GET /messages, matches_narrow, flags over a narrow, mark a topic read.
import { endpoints } from "../../api/index.js";
import { route, type Route } from "../route.js";
import type { Realm } from "../realm.js";
import type { SandboxUser, StoredMessage } from "../model.js";
import { badRequest, type SandboxError } from "../errors.js";
import { withFlag, withoutFlag } from "../flagSets.js";
import { compileNarrow, highlightHtml, highlightTopic } from "../narrow.js";
import { allMatching, candidates, resolveAnchor, window } from "../range.js";
import { normalizeTopic } from "../send.js";

const MAX_FETCH = 5000;
const MAX_UPDATE = 5000;

/** Flags a user may not set or clear through the API. */
const READ_ONLY_FLAGS = new Set([
  "mentioned",
  "stream_wildcard_mentioned",
  "topic_wildcard_mentioned",
  "wildcard_mentioned",
  "has_alert_word",
  "historical",
]);
const KNOWN_FLAGS = new Set(["read", "starred", "collapsed", ...READ_ONLY_FLAGS]);

/** Adds or removes one flag on messages and tells the user's queues; returns the changed IDs. */
export function updateFlags(
  realm: Realm,
  user: SandboxUser,
  messages: readonly StoredMessage[],
  op: "add" | "remove",
  flag: string,
): number[] {
  const changed: number[] = [];
  for (const m of messages) {
    const flags = m.flags.get(user.userId);
    if (!flags) continue;
    if (op === "add" ? flags.has(flag) : !flags.has(flag)) continue;
    m.flags.set(user.userId, op === "add" ? withFlag(flags, flag) : withoutFlag(flags, flag));
    changed.push(m.id);
  }
  if (changed.length > 0) {
    const event: Record<string, unknown> & { type: string } = {
      type: "update_message_flags",
      op,
      operation: op,
      flag,
      messages: changed,
      all: false,
    };
    // As the server: marking unread says what the client needs for its unread counts.
    if (flag === "read" && op === "remove")
      event.message_details = messageDetails(realm, user, messages, new Set(changed));
    realm.pushEvent([user.userId], event);
  }
  return changed;
}

const MENTION_FLAGS = ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned"];

/**
 * The server's `format_unread_message_details`: per message, `type` `private` with the other
 * `user_ids` (sorted, without the user) or `stream` with `stream_id`, `topic` and
 * `unmuted_stream_msg`, and `mentioned: true` for messages that mention the user.
 */
function messageDetails(
  realm: Realm,
  user: SandboxUser,
  messages: readonly StoredMessage[],
  ids: ReadonlySet<number>,
): Record<string, Record<string, unknown>> {
  const details: Record<string, Record<string, unknown>> = {};
  for (const m of messages) {
    if (!ids.has(m.id)) continue;
    const entry: Record<string, unknown> =
      m.kind === "stream"
        ? {
            type: "stream",
            stream_id: m.streamId,
            topic: m.topic,
            unmuted_stream_msg:
              !realm.subscriptionProperties.isMuted(user.userId, m.streamId!) &&
              realm.topicPolicy(user.userId, m.streamId!, m.topic) !== 1,
          }
        : {
            type: "private",
            user_ids: m.recipients.filter((id) => id !== user.userId).sort((a, b) => a - b),
          };
    const flags = m.flags.get(user.userId);
    if (MENTION_FLAGS.some((f) => flags?.has(f))) entry.mentioned = true;
    details[String(m.id)] = entry;
  }
  return details;
}

/** The server's `IncompatibleParametersError`. */
const incompatible = (parameters: string): SandboxError =>
  badRequest(`Unsupported parameter combination: ${parameters}`, { parameters });

/** Excluding the anchor is allowed only at an end of the range (both views check it). */
function checkAnchorExclusion(numBefore: number, numAfter: number, includeAnchor: boolean): void {
  if (numBefore > 0 && numAfter > 0 && !includeAnchor)
    throw badRequest("The anchor can only be excluded at an end of the range");
}

function checkFlag(flag: string): void {
  if (!KNOWN_FLAGS.has(flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (READ_ONLY_FLAGS.has(flag)) throw badRequest(`Flag not editable: '${flag}'`);
}

export const narrowRoutes: Route[] = [
  route(endpoints.messages.list, ({ realm, user, params }) => {
    const narrow = compileNarrow(realm, user, params.narrow);
    const view = (m: StoredMessage): Record<string, unknown> => {
      const shown = realm.messageView(m, user, {
        applyMarkdown: params.apply_markdown ?? true,
        allowEmptyTopicName: params.allow_empty_topic_name ?? false,
        clientGravatar: params.client_gravatar ?? true,
      });
      if (narrow.searchWords.length > 0) {
        shown.match_content = highlightHtml(m.renderedContent, narrow.searchWords);
        shown.match_subject = highlightTopic(
          realm.displayTopic(m.topic, params.allow_empty_topic_name ?? false),
          narrow.searchWords,
        );
      }
      return shown;
    };
    const matching = candidates(realm, user, narrow);
    const numBefore = params.num_before ?? 0;
    const numAfter = params.num_after ?? 0;
    if (params.message_ids !== undefined) {
      if (numBefore || numAfter || params.anchor !== undefined || params.use_first_unread_anchor)
        throw incompatible(
          "num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor",
        );
      if (params.message_ids.length > MAX_FETCH)
        throw badRequest(`Too many messages requested (maximum ${MAX_FETCH}).`);
      const wanted = new Set(params.message_ids);
      return {
        messages: allMatching(matching)
          .filter((m) => wanted.has(m.id))
          .map(view),
        history_limited: false,
        found_anchor: false,
        found_oldest: false,
        found_newest: false,
      };
    }
    const anchor = params.use_first_unread_anchor ? "first_unread" : params.anchor;
    if (anchor === undefined) throw badRequest("Missing 'anchor' argument.");
    if (numBefore + numAfter > MAX_FETCH)
      throw badRequest(`Too many messages requested (maximum ${MAX_FETCH}).`);
    const includeAnchor = params.include_anchor ?? true;
    checkAnchorExclusion(numBefore, numAfter, includeAnchor);
    const anchorId = resolveAnchor(
      anchor,
      matching,
      (m) => !realm.flagsFor(m, user).includes("read"),
    );
    const result = window(matching, anchorId, { numBefore, numAfter, includeAnchor });
    return {
      anchor: result.anchorId,
      found_anchor: result.foundAnchor,
      found_oldest: result.foundOldest,
      found_newest: result.foundNewest,
      history_limited: false,
      messages: result.messages.map(view),
    };
  }),

  route(endpoints.messages.matchesNarrow, ({ realm, user, params }) => {
    const narrow = compileNarrow(realm, user, params.narrow);
    const messages: Record<string, { match_content: string; match_subject: string }> = {};
    for (const id of params.msg_ids) {
      const m = realm.message(id);
      if (!m || !realm.canSee(user, m) || !narrow.matches(m)) continue;
      messages[String(id)] = {
        match_content: highlightHtml(m.renderedContent, narrow.searchWords),
        match_subject: highlightTopic(realm.displayTopic(m.topic, false), narrow.searchWords),
      };
    }
    return { messages };
  }),

  route(endpoints.messages.updateFlagsForNarrow, ({ realm, user, params }) => {
    checkFlag(params.flag);
    const narrow = compileNarrow(realm, user, params.narrow);
    const matching = candidates(realm, user, narrow, true);
    const anchorId = resolveAnchor(
      params.anchor,
      matching,
      (m) => !m.flags.get(user.userId)?.has("read"),
    );
    const includeAnchor = params.include_anchor ?? true;
    checkAnchorExclusion(params.num_before, params.num_after, includeAnchor);
    // Clamped as the server does, so that num_before + num_after <= 5000.
    const numBefore = Math.min(
      params.num_before,
      Math.max(MAX_UPDATE - params.num_after, MAX_UPDATE / 2),
    );
    const numAfter = Math.min(params.num_after, MAX_UPDATE - numBefore);
    const range = window(matching, anchorId, { numBefore, numAfter, includeAnchor });
    let targets = range.messages;
    const ignored = new Set<number>();
    const markingUnread = params.flag === "read" && params.op === "remove";
    if (markingUnread) {
      targets = targets.filter((m) => {
        if (m.kind !== "stream" || realm.channels.get(m.streamId!)?.subscribers.has(user.userId))
          return true;
        ignored.add(m.streamId!);
        return false;
      });
    }
    const changed = updateFlags(realm, user, targets, params.op, params.flag);
    return {
      processed_count: range.messages.length,
      updated_count: changed.length,
      first_processed_id: range.messages[0]?.id ?? null,
      last_processed_id: range.messages.at(-1)?.id ?? null,
      found_oldest: range.foundOldest,
      found_newest: range.foundNewest,
      ...(markingUnread
        ? { ignored_because_not_subscribed_channels: [...ignored].sort((a, b) => a - b) }
        : {}),
    };
  }),

  route(endpoints.topics.markAsRead, ({ realm, user, params }) => {
    const channel = realm.channels.get(params.stream_id);
    if (!channel || (channel.inviteOnly && !channel.subscribers.has(user.userId)))
      throw badRequest("Invalid channel ID");
    // As the server: an empty topic_name marks the whole channel; a topic the user has no
    // message in is refused.
    if (params.topic_name === "") {
      updateFlags(realm, user, realm.index.channel(channel.streamId), "add", "read");
      return {};
    }
    const topic = normalizeTopic(realm, params.topic_name).toLowerCase();
    const inTopic = realm.index
      .topic(channel.streamId, topic)
      .filter(
        (m) =>
          m.streamId === channel.streamId &&
          m.topic.toLowerCase() === topic &&
          m.flags.has(user.userId),
      );
    if (inTopic.length === 0) throw badRequest(`No such topic '${params.topic_name}'`);
    updateFlags(realm, user, inTopic, "add", "read");
    return {};
  }),
];
