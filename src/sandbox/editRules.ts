// What PATCH /messages/{id} may do, in the server's order: the edit window, widgets, moves and their time limits.
import type { Realm } from "./realm.js";
import type { RealmSettings, SandboxUser, StoredMessage, Channel } from "./model.js";
import { badRequest, SandboxError } from "./errors.js";
import { isGuest, isModeratorOrAbove } from "./permissions.js";
import { checkedTopic, normalizedContent, normalizeTopic } from "./send.js";
import { systemGroupId } from "./userAccess.js";

/** Seconds the server allows past each time limit (network delays, the web app's countdown). */
export const EDIT_GRACE_SECONDS = 20;

/** The prefix of a resolved topic. */
export const RESOLVED_PREFIX = "✔ ";

export type PropagateMode = "change_one" | "change_later" | "change_all";

/** The registration's (`realm`) fields that announce the edit and move rules. */
export function editRulesState(s: RealmSettings): Record<string, unknown> {
  return {
    realm_allow_message_editing: s.allowMessageEditing,
    realm_message_content_edit_limit_seconds: s.messageContentEditLimitSeconds,
    realm_message_content_delete_limit_seconds: s.messageContentDeleteLimitSeconds,
    realm_move_messages_within_stream_limit_seconds: s.moveMessagesWithinStreamLimitSeconds,
    realm_move_messages_between_streams_limit_seconds: s.moveMessagesBetweenStreamsLimitSeconds,
    // The server's defaults: everyone may move messages between topics and resolve topics,
    // members (not guests) may move them to another channel.
    realm_can_move_messages_between_topics_group: systemGroupId("role:everyone"),
    realm_can_resolve_topics_group: systemGroupId("role:everyone"),
    realm_can_move_messages_between_channels_group: systemGroupId("role:members"),
    realm_allow_edit_history: s.allowEditHistory,
    realm_message_edit_history_visibility_policy: s.allowEditHistory ? "all" : "none",
  };
}

/** The request as the route decoded it. */
export interface UpdateRequest {
  content?: string;
  topic?: string;
  streamId?: number;
  propagateMode: PropagateMode;
}

/** A checked edit: what changes, normalised, and what kind of topic change it is. */
export interface CheckedEdit {
  content?: string;
  topic?: string;
  channel?: Channel;
  propagateMode: PropagateMode;
  /** The topic gains (loses) the resolved prefix and is otherwise the same. */
  resolved: boolean;
  unresolved: boolean;
}

const ageSeconds = (realm: Realm, message: StoredMessage): number =>
  realm.nowSeconds() - message.timestamp;

/** Whether a message sent `age` seconds ago is past a limit (null: none), grace included. */
const pastLimit = (age: number, limit: number | null): boolean =>
  limit !== null && age > limit + EDIT_GRACE_SECONDS;

/** The server's validate_user_can_edit_message: content edits only by the sender, within the window. */
function checkContentEdit(realm: Realm, editor: SandboxUser, message: StoredMessage): void {
  if (!realm.settings.allowMessageEditing)
    throw badRequest("Your organization has turned off message editing");
  if (message.senderId !== editor.userId)
    throw badRequest("You don't have permission to edit this message");
  if (pastLimit(ageSeconds(realm, message), realm.settings.messageContentEditLimitSeconds))
    throw badRequest("The time limit for editing this message has passed");
}

/** Whether the message carries a widget (every widget is stored as submessages, and only widgets are). */
const isWidgetMessage = (message: StoredMessage): boolean => message.submessages.length > 0;

/**
 * Checks a PATCH /messages/{id} as the server's check_update_message does, in its order, and
 * answers what to change. Refusals are `BAD_REQUEST` with the server's messages, and
 * `MOVE_MESSAGES_TIME_LIMIT_EXCEEDED` for a `change_all` move of a topic partly too old to move.
 */
export function checkUpdate(
  realm: Realm,
  editor: SandboxUser,
  message: StoredMessage,
  req: UpdateRequest,
): CheckedEdit {
  const { content, streamId, propagateMode } = req;
  if (content !== undefined) checkContentEdit(realm, editor, message);
  let topic = req.topic === undefined ? undefined : normalizeTopic(realm, req.topic);
  if (topic === message.topic) topic = undefined;

  if (topic === undefined && content === undefined && streamId === undefined)
    throw badRequest("Nothing to change");
  if (message.kind === "private") {
    if (streamId !== undefined) throw badRequest("Direct messages cannot be moved to channels.");
    if (topic !== undefined) throw badRequest("Direct messages cannot have topics.");
  }
  if (propagateMode !== "change_one" && topic === undefined && streamId === undefined)
    throw badRequest("Invalid propagate_mode without topic edit");
  if (topic === RESOLVED_PREFIX.trim() || topic === `${RESOLVED_PREFIX}general chat`)
    throw badRequest("General chat cannot be marked as resolved");
  const wanted = topic;
  if (topic !== undefined && topic !== "") topic = checkedTopic(realm, topic);
  if (streamId !== undefined && content !== undefined)
    throw badRequest("Cannot change message content while changing channel");
  if (content !== undefined && isWidgetMessage(message))
    throw badRequest("Widgets cannot be edited.");

  const edit: CheckedEdit = {
    // An empty edit deletes the content, leaving the server's "(deleted)" marker.
    content:
      content === undefined
        ? undefined
        : normalizedContent(realm, content.trimEnd() === "" ? "(deleted)" : content),
    topic,
    propagateMode,
    resolved: false,
    unresolved: false,
  };
  if (message.kind === "private") return edit;

  if (streamId !== undefined) {
    const channel = realm.channels.get(streamId);
    if (!channel || !canAccessChannel(editor, channel)) throw badRequest("Invalid channel ID");
    edit.channel = channel;
  }
  const age = ageSeconds(realm, message);
  const old = message.topic;
  if (topic !== undefined) {
    edit.resolved =
      topic.startsWith(RESOLVED_PREFIX) &&
      !old.startsWith(RESOLVED_PREFIX) &&
      wanted!.slice(RESOLVED_PREFIX.length) === old;
    edit.unresolved =
      old.startsWith(RESOLVED_PREFIX) &&
      !topic.startsWith(RESOLVED_PREFIX) &&
      old.replace(/^[✔ ]+/u, "") === topic;
    // Everyone may move messages between topics and resolve topics (the server's defaults); the
    // time limit applies to plain topic moves by users below moderator.
    const limit = realm.settings.moveMessagesWithinStreamLimitSeconds;
    if (!edit.resolved && !edit.unresolved && !isModeratorOrAbove(editor) && pastLimit(age, limit))
      throw badRequest("The time limit for editing this message's topic has passed.");
  }
  if (streamId !== undefined) {
    // Members may move messages to another channel (the server's default), guests may not.
    if (isGuest(editor)) throw badRequest("You don't have permission to move this message");
    const limit = realm.settings.moveMessagesBetweenStreamsLimitSeconds;
    if (!isModeratorOrAbove(editor) && pastLimit(age, limit))
      throw badRequest("The time limit for editing this message's channel has passed");
  }
  if (
    propagateMode === "change_all" &&
    !isModeratorOrAbove(editor) &&
    !edit.resolved &&
    !edit.unresolved
  )
    checkWholeTopicMovable(realm, editor, message, topic !== undefined, streamId !== undefined);
  return edit;
}

/** The server's access_stream_by_id_for_message: public channels (not for guests) or subscribed ones. */
const canAccessChannel = (user: SandboxUser, channel: Channel): boolean =>
  channel.subscribers.has(user.userId) || (!channel.inviteOnly && !isGuest(user));

/**
 * The server's check_time_limit_for_change_all_propagate_mode: moving a whole topic needs every
 * message of it (that the editor can see) to be young enough; the stricter limit of the two
 * applies when both topic and channel change. Refused with `MOVE_MESSAGES_TIME_LIMIT_EXCEEDED`
 * saying how much of the topic could move.
 */
function checkWholeTopicMovable(
  realm: Realm,
  editor: SandboxUser,
  message: StoredMessage,
  topicChanged: boolean,
  channelChanged: boolean,
): void {
  const s = realm.settings;
  const limits = [
    topicChanged ? s.moveMessagesWithinStreamLimitSeconds : null,
    channelChanged ? s.moveMessagesBetweenStreamsLimitSeconds : null,
  ].filter((l): l is number => l !== null);
  if (limits.length === 0) return;
  const deadline = Math.min(...limits) + EDIT_GRACE_SECONDS;
  const oldest = realm.nowSeconds() - deadline;
  const lower = message.topic.toLowerCase();
  const inTopic = realm.index
    .topic(message.streamId!, message.topic)
    .filter(
      (m) =>
        m.streamId === message.streamId &&
        m.topic.toLowerCase() === lower &&
        realm.canSee(editor, m),
    )
    .sort((a, b) => a.id - b.id);
  const movable = inTopic.filter((m) => m.timestamp > oldest);
  if (movable.length === inTopic.length) return;
  throw new SandboxError(
    "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
    `You only have permission to move the ${movable.length}/${inTopic.length} most recent messages in this topic.`,
    {
      extra: {
        first_message_id_allowed_to_move: movable[0]?.id ?? null,
        total_messages_in_topic: inTopic.length,
        total_messages_allowed_to_move: movable.length,
      },
    },
  );
}
