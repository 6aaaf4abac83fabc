// Messages as a viewer receives them: the message object of GET /messages and of `message` events.
import { apiEmail } from "./emailVisibility.js";
import { avatarField } from "./avatar.js";
import type { RealmState } from "./realmState.js";
import type { SandboxUser, StoredMessage } from "./model.js";

/** How a message is shown: rendered or raw, the empty topic's name, and `client_gravatar` (default true). */
export interface MessageViewOptions {
  applyMarkdown: boolean;
  allowEmptyTopicName: boolean;
  clientGravatar?: boolean;
}

/** Whether `addEditFields` adds anything to the message's view. */
const hasEditFields = (realm: RealmState, message: StoredMessage): boolean =>
  message.lastEditTimestamp !== undefined ||
  message.lastMovedTimestamp !== undefined ||
  (message.edits.length > 0 && realm.settings.allowEditHistory);

/** Adds the edit fields a message has (`last_edit_timestamp`, `last_moved_timestamp`, `edit_history`) to `fields`. */
function addEditFields(
  realm: RealmState,
  fields: Record<string, unknown>,
  message: StoredMessage,
  allowEmpty: boolean,
): void {
  if (message.lastEditTimestamp !== undefined)
    fields.last_edit_timestamp = message.lastEditTimestamp;
  if (message.lastMovedTimestamp !== undefined)
    fields.last_moved_timestamp = message.lastMovedTimestamp;
  if (message.edits.length > 0 && realm.settings.allowEditHistory) {
    fields.edit_history = [...message.edits].reverse().map((e) => {
      const entry: Record<string, unknown> = { user_id: e.userId, timestamp: e.timestamp };
      if (e.prevContent !== undefined) {
        entry.prev_content = e.prevContent;
        entry.prev_rendered_content = e.prevRenderedContent;
      }
      if (e.prevTopic !== undefined) {
        entry.prev_topic = realm.displayTopic(e.prevTopic, allowEmpty);
        entry.topic = realm.displayTopic(e.topic!, allowEmpty);
      }
      if (e.prevStreamId !== undefined) {
        entry.prev_stream = e.prevStreamId;
        entry.stream = e.streamId;
      }
      return entry;
    });
  }
}

/** The message object as `viewer` receives it. */
export function messageView(
  realm: RealmState,
  message: StoredMessage,
  viewer: SandboxUser,
  options: MessageViewOptions,
): Record<string, unknown> {
  return view(realm, message, viewer, options, realm.flagsFor(message, viewer));
}

/** A `message` event's parts for `viewer`: the message object (without `flags`) and the flags beside it. */
export function messageEvent(
  realm: RealmState,
  message: StoredMessage,
  viewer: SandboxUser,
  options: MessageViewOptions,
): { message: Record<string, unknown>; flags: string[] } {
  return {
    message: view(realm, message, viewer, options, undefined),
    flags: realm.flagsFor(message, viewer),
  };
}

/**
 * The message object, with `flags` when given. Built key by key in the API's order, not with
 * spreads or `delete`, which make objects slow to build and to serialize: every message of a
 * GET /messages answer and of every event goes through here.
 */
function view(
  realm: RealmState,
  message: StoredMessage,
  viewer: SandboxUser,
  options: MessageViewOptions,
  flags: string[] | undefined,
): Record<string, unknown> {
  const sender = realm.users.get(message.senderId)!;
  // The API email: the placeholder for every viewer when the real one is not public.
  const senderEmail = apiEmail(realm, sender);
  const avatarUrl = avatarField(realm, viewer, sender, options.clientGravatar ?? true);
  const content = options.applyMarkdown ? message.renderedContent : message.content;
  const contentType = options.applyMarkdown ? "text/html" : "text/x-markdown";
  const reactions = message.reactions.map((r) => ({
    emoji_name: r.emojiName,
    emoji_code: r.emojiCode,
    reaction_type: r.reactionType,
    user_id: r.userId,
  }));
  const submessages = message.submessages.map((sub) => ({
    id: sub.id,
    message_id: message.id,
    sender_id: sub.senderId,
    msg_type: sub.msgType,
    content: sub.content,
  }));
  if (flags === undefined && message.kind === "stream" && !hasEditFields(realm, message)) {
    // A message event's usual view, every key in one literal: the channel's keys added after a
    // literal of the others gave each object a second store for them (about 70 bytes more,
    // kept for as long as the event waits in its queue).
    const channel = realm.channels.get(message.streamId!)!;
    return {
      id: message.id,
      sender_id: sender.userId,
      sender_email: senderEmail,
      sender_full_name: sender.fullName,
      sender_realm_str: "sandbox",
      avatar_url: avatarUrl,
      client: message.client,
      content,
      content_type: contentType,
      timestamp: message.timestamp,
      recipient_id: message.recipientId,
      is_me_message: message.content.startsWith("/me "),
      reactions,
      submessages,
      topic_links: [],
      type: "stream",
      stream_id: channel.streamId,
      display_recipient: channel.name,
      subject: realm.displayTopic(message.topic, options.allowEmptyTopicName),
    };
  }
  const out: Record<string, unknown> = {
    id: message.id,
    sender_id: sender.userId,
    sender_email: senderEmail,
    sender_full_name: sender.fullName,
    sender_realm_str: "sandbox",
    avatar_url: avatarUrl,
    client: message.client,
    content,
    content_type: contentType,
    timestamp: message.timestamp,
    recipient_id: message.recipientId,
    is_me_message: message.content.startsWith("/me "),
    reactions,
    submessages,
    topic_links: [],
  };
  if (flags !== undefined) out.flags = flags;
  addEditFields(realm, out, message, options.allowEmptyTopicName);
  if (message.kind === "stream") {
    const channel = realm.channels.get(message.streamId!)!;
    out.type = "stream";
    out.stream_id = channel.streamId;
    out.display_recipient = channel.name;
    out.subject = realm.displayTopic(message.topic, options.allowEmptyTopicName);
    return out;
  }
  out.type = "private";
  out.display_recipient = message.recipients.map((id) => {
    const u = realm.users.get(id)!;
    return {
      id: u.userId,
      email: apiEmail(realm, u),
      full_name: u.fullName,
      is_mirror_dummy: false,
    };
  });
  out.subject = "";
  return out;
}
