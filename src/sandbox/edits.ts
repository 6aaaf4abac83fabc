// Message edits: content and topic changes, their history snapshots, HTML diffs and update_message events.
import { renderMarkdown } from "./markdown.js";
import { withFlag } from "./flagSets.js";
import type { Realm } from "./realm.js";
import type { Channel, SandboxUser, StoredEdit, StoredMessage } from "./model.js";

/** Splits HTML into tags and words (with their trailing spaces) for diffing. */
const tokens = (html: string): string[] => html.match(/<[^>]*>|[^<\s]+\s*|\s+/g) ?? [];

/**
 * The new HTML with inserted words wrapped in `highlight_text_inserted` spans and removed words
 * kept in `highlight_text_deleted` spans; a longest-common-subsequence word diff.
 */
export function htmlDiff(before: string, after: string): string {
  const a = tokens(before);
  const b = tokens(after);
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i]![j] =
        a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: string[] = [];
  const wrap = (cls: string, token: string): string =>
    token.startsWith("<") ? token : `<span class="${cls}">${token}</span>`;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(b[j]!);
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      out.push(wrap("highlight_text_inserted", b[j++]!));
    } else {
      const token = a[i++]!;
      if (!token.startsWith("<")) out.push(wrap("highlight_text_deleted", token));
    }
  }
  return out.join("");
}

export interface EditRequest {
  editor: SandboxUser;
  message: StoredMessage;
  content?: string;
  /** Already normalised by the topic rule. */
  topic?: string;
  channel?: Channel;
  propagateMode: "change_one" | "change_later" | "change_all";
}

/** Messages a topic move carries along, per `propagate_mode`. */
function movedTogether(realm: Realm, req: EditRequest): StoredMessage[] {
  const { message } = req;
  if (req.propagateMode === "change_one") return [message];
  const lower = message.topic.toLowerCase();
  return realm.index
    .topic(message.streamId!, message.topic)
    .filter(
      (m) =>
        m.streamId === message.streamId &&
        m.topic.toLowerCase() === lower &&
        (req.propagateMode === "change_all" || m.id >= message.id),
    );
}

/**
 * Applies an edit: stores history, updates the message(s) and sends `update_message` events.
 * Answers the messages that moved (the target message alone for a content edit), none when
 * nothing changed.
 */
export function editMessage(realm: Realm, req: EditRequest): StoredMessage[] {
  const { message, editor } = req;
  const now = realm.nowSeconds();
  const contentChanged = req.content !== undefined && req.content !== message.content;
  const topicChanged = req.topic !== undefined && req.topic !== message.topic;
  const channelChanged = req.channel !== undefined && req.channel.streamId !== message.streamId;
  if (!contentChanged && !topicChanged && !channelChanged) return [];
  const event: Record<string, unknown> & { type: string } = {
    type: "update_message",
    user_id: editor.userId,
    message_id: message.id,
    edit_timestamp: now,
    rendering_only: false,
  };
  if (message.kind === "stream") {
    event.stream_id = message.streamId;
    event.stream_name = realm.channels.get(message.streamId!)?.name;
  }
  let moved = [message];
  if (topicChanged || channelChanged) {
    moved = movedTogether(realm, req);
    event.propagate_mode = req.propagateMode;
    event.orig_subject = message.topic;
    if (topicChanged) event.subject = req.topic;
    if (channelChanged) event.new_stream_id = req.channel!.streamId;
    // No linkifiers are configured, so a new topic links nowhere.
    if (topicChanged) event.topic_links = [];
  }
  const original = { topic: message.topic, streamId: message.streamId };
  for (const m of moved) {
    const edit: StoredEdit = { userId: editor.userId, timestamp: now };
    if (m === message && contentChanged) {
      edit.prevContent = m.content;
      edit.prevRenderedContent = m.renderedContent;
    }
    if (topicChanged) {
      edit.prevTopic = m.topic;
      edit.topic = req.topic;
      m.topic = req.topic!;
    }
    if (channelChanged) {
      edit.prevStreamId = m.streamId;
      edit.streamId = req.channel!.streamId;
      m.streamId = req.channel!.streamId;
    }
    if (topicChanged || channelChanged) {
      m.lastMovedTimestamp = now;
      realm.index.moved(m, original);
    }
    m.edits.push(edit);
  }
  if (contentChanged) {
    event.orig_content = message.content;
    event.orig_rendered_content = message.renderedContent;
    message.content = req.content!;
    message.renderedContent = renderMarkdown(req.content!, realm.mentionTargets);
    message.lastEditTimestamp = now;
    realm.uploads.claim(realm, message);
    event.content = message.content;
    event.rendered_content = message.renderedContent;
    event.is_me_message = message.content.startsWith("/me ");
  }
  event.message_ids = moved.map((m) => m.id).sort((a, b) => a - b);
  const audience = new Set([...message.flags.keys()]);
  if (original.streamId !== undefined) {
    for (const id of realm.channels.get(original.streamId)?.subscribers ?? []) audience.add(id);
  }
  const lost = channelChanged ? loseAccess(realm, moved, original) : new Set<number>();
  for (const queue of realm.queues.all()) {
    if (!audience.has(queue.userId) || lost.has(queue.userId)) continue;
    const viewer = realm.users.get(queue.userId)!;
    // Subscribers without the message (shared history) get it as read, as the server's subscriber_info.
    const flags = message.flags.has(viewer.userId) ? realm.flagsFor(message, viewer) : ["read"];
    const allowEmpty = queue.filter.allowEmptyTopicName;
    const shown: Record<string, unknown> & { type: string } = { ...event, flags };
    if (typeof event.orig_subject === "string")
      shown.orig_subject = realm.displayTopic(event.orig_subject, allowEmpty);
    if (typeof event.subject === "string")
      shown.subject = realm.displayTopic(event.subject, allowEmpty);
    queue.push(shown);
  }
  realm.announce(event, new Set([...audience].filter((id) => !lost.has(id))));
  return topicChanged || channelChanged ? moved : contentChanged ? [message] : [];
}

/**
 * After a channel move: users who had the messages but may not see the new channel lose them
 * (their copies go, with `delete_message` events for the original channel and topic); users who
 * still see them without being subscribed get them marked read (`update_message_flags`).
 * Answers the users who lost access.
 */
function loseAccess(
  realm: Realm,
  moved: StoredMessage[],
  original: { topic: string; streamId?: number },
): Set<number> {
  const lostIds = new Map<number, number[]>();
  const readIds = new Map<number, number[]>();
  for (const m of moved) {
    const channel = realm.channels.get(m.streamId!);
    for (const [userId, flags] of [...m.flags]) {
      const user = realm.users.get(userId)!;
      if (!realm.canSee(user, m)) {
        m.flags.delete(userId);
        lostIds.set(userId, [...(lostIds.get(userId) ?? []), m.id]);
      } else if (!channel?.subscribers.has(userId) && !flags.has("read")) {
        m.flags.set(userId, withFlag(flags, "read"));
        readIds.set(userId, [...(readIds.get(userId) ?? []), m.id]);
      }
    }
  }
  for (const queue of realm.queues.all()) {
    const ids = lostIds.get(queue.userId);
    if (ids) {
      const where = {
        type: "delete_message",
        message_type: "stream",
        stream_id: original.streamId,
        topic: realm.displayTopic(original.topic, queue.filter.allowEmptyTopicName),
      };
      if (queue.filter.bulkMessageDeletion) queue.push({ ...where, message_ids: ids });
      else for (const id of ids) queue.push({ ...where, message_id: id });
    }
    const read = readIds.get(queue.userId);
    if (read)
      queue.push({
        type: "update_message_flags",
        op: "add",
        operation: "add",
        flag: "read",
        messages: read,
        all: false,
      });
  }
  return new Set(lostIds.keys());
}

/** GET /messages/{id}/history: the original, then the state after each edit, oldest first. */
export function historySnapshots(
  realm: Realm,
  message: StoredMessage,
  allowEmptyTopicName: boolean,
): Record<string, unknown>[] {
  const shown = (topic: string): string => realm.displayTopic(topic, allowEmptyTopicName);
  // Walk back from the current state to the original.
  const states: { topic: string; content: string; rendered: string; streamId?: number }[] = [];
  let state = {
    topic: message.topic,
    content: message.content,
    rendered: message.renderedContent,
    streamId: message.streamId,
  };
  states.unshift(state);
  for (const edit of [...message.edits].reverse()) {
    state = {
      topic: edit.prevTopic ?? state.topic,
      content: edit.prevContent ?? state.content,
      rendered: edit.prevRenderedContent ?? state.rendered,
      streamId: edit.prevStreamId ?? state.streamId,
    };
    states.unshift(state);
  }
  const snapshots: Record<string, unknown>[] = [
    {
      topic: shown(states[0]!.topic),
      content: states[0]!.content,
      rendered_content: states[0]!.rendered,
      timestamp: message.timestamp,
      user_id: message.senderId,
    },
  ];
  message.edits.forEach((edit, i) => {
    const after = states[i + 1]!;
    const snap: Record<string, unknown> = {
      topic: shown(after.topic),
      content: after.content,
      rendered_content: after.rendered,
      timestamp: edit.timestamp,
      user_id: edit.userId,
    };
    if (edit.prevTopic !== undefined) snap.prev_topic = shown(edit.prevTopic);
    if (edit.prevStreamId !== undefined) {
      snap.stream = edit.streamId;
      snap.prev_stream = edit.prevStreamId;
    }
    if (edit.prevContent !== undefined) {
      snap.prev_content = edit.prevContent;
      snap.prev_rendered_content = edit.prevRenderedContent;
      snap.content_html_diff = htmlDiff(edit.prevRenderedContent!, after.rendered);
    }
    snapshots.push(snap);
  });
  return snapshots;
}
