// Messages on the wire: the message object and the messaging endpoints.
import { z } from "zod";
import { bool, int, optBool, optInt, optStr, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";
import { emojiReactionType, messageType, narrow } from "./common.js";

export const recipient = z.looseObject({
  id: int,
  email: str,
  full_name: str,
  is_mirror_dummy: optBool,
});
export type Recipient = z.infer<typeof recipient>;

export const reaction = z.looseObject({
  emoji_name: str,
  emoji_code: str,
  reaction_type: z.union([emojiReactionType, str]),
  user_id: int,
});
export type Reaction = z.infer<typeof reaction>;

export const submessage = z.looseObject({
  id: int,
  message_id: int,
  sender_id: int,
  msg_type: str,
  content: str,
});

export const editHistoryEntry = z.looseObject({
  user_id: z.int().nullable(),
  timestamp: int,
  prev_content: optStr,
  prev_rendered_content: optStr,
  prev_stream: optInt,
  stream: optInt,
  prev_topic: optStr,
  topic: optStr,
});
export type EditHistoryEntry = z.infer<typeof editHistoryEntry>;

/** Links the realm's linkifiers found in a topic: `text` as written, `url` expanded. */
export const topicLinks = z.array(z.looseObject({ text: str, url: str }));

/** A message as fetched or delivered in a `message` event. */
export const message = z.looseObject({
  id: int,
  type: z.enum(["stream", "private"]),
  stream_id: optInt,
  subject: str,
  content: str,
  content_type: z.enum(["text/html", "text/x-markdown"]).optional(),
  timestamp: int,
  sender_id: int,
  sender_email: str,
  sender_full_name: str,
  sender_realm_str: optStr,
  avatar_url: z.string().nullable().optional(),
  client: optStr,
  display_recipient: z.union([str, z.array(recipient)]),
  recipient_id: optInt,
  is_me_message: optBool,
  edit_history: z.array(editHistoryEntry).optional(),
  last_edit_timestamp: optInt,
  last_moved_timestamp: optInt,
  reactions: z.array(reaction).default([]),
  submessages: z.array(submessage).default([]),
  topic_links: topicLinks.default([]),
  flags: z.array(str).optional(),
});
export type Message = z.infer<typeof message>;

/** `to` of POST /messages: a channel name or ID, or a list of user IDs or emails. */
export const sendTo = z.union([
  z.string().min(1),
  int,
  z.array(int).min(1),
  z.array(z.string().min(1)).min(1),
]);

export const send = endpoint({
  method: "POST",
  path: "/messages",
  params: () =>
    z.object({
      type: messageType,
      to: sendTo,
      content: str,
      topic: optStr,
      queue_id: optStr,
      local_id: optStr,
      read_by_sender: optBool,
      /**
       * A widget for the message (the real server's undocumented parameter): `{ widget_type:
       * "zform", extra_data: { type: "choices", heading, choices: [{ short_name, long_name, reply }] } }`,
       * as an object or its JSON text. Delivered in the message's `submessages`. Polls and todo
       * lists come from content starting `/poll` or `/todo`.
       */
      widget_content: z.union([str, z.record(str, z.unknown())]).optional(),
    }),
  response: () =>
    z.looseObject({
      id: int,
      automatic_new_visibility_policy: optInt,
    }),
  idempotent: false,
});
export type SendParams = z.input<typeof send.params>;

/** `anchor` of GET /messages and flag updates: a message ID or a computed position. */
export const anchor = z.union([
  int,
  z.enum(["newest", "oldest", "first_unread"]),
  z.string().regex(/^\d+$/, "must be a message ID, newest, oldest or first_unread"),
]);

export const get = endpoint({
  method: "GET",
  path: "/messages/{message_id}",
  params: () =>
    z.object({
      message_id: int,
      apply_markdown: optBool,
      allow_empty_topic_name: optBool,
    }),
  response: () => z.looseObject({ message, raw_content: optStr }),
});

/** One state of a message in GET /messages/{id}/history, oldest first. */
export const editSnapshot = z.looseObject({
  topic: str,
  content: str,
  rendered_content: str,
  timestamp: int,
  user_id: z.int().nullable(),
  prev_topic: optStr,
  stream: optInt,
  prev_stream: optInt,
  prev_content: optStr,
  prev_rendered_content: optStr,
  content_html_diff: optStr,
});
export type EditSnapshot = z.infer<typeof editSnapshot>;

export const history = endpoint({
  method: "GET",
  path: "/messages/{message_id}/history",
  params: () =>
    z.object({
      message_id: int,
      allow_empty_topic_name: optBool,
    }),
  response: () => z.looseObject({ message_history: z.array(editSnapshot) }),
});

export const update = endpoint({
  method: "PATCH",
  path: "/messages/{message_id}",
  params: () =>
    z.object({
      message_id: int,
      content: optStr,
      /** The new topic; `subject` is its deprecated alias. */
      topic: optStr,
      subject: optStr,
      /** The channel to move to; content cannot change in the same request. */
      stream_id: optInt,
      /** Which messages move with a topic or channel change; only `change_one` for content edits. */
      propagate_mode: z.enum(["change_one", "change_later", "change_all"]).optional(),
      send_notification_to_old_thread: optBool,
      send_notification_to_new_thread: optBool,
      prev_content_sha256: optStr,
    }),
  response: () =>
    z.looseObject({
      detached_uploads: z.array(z.looseObject({})).optional(),
    }),
  idempotent: true,
});

/** A message of GET /messages: the message object plus flags and search highlights. */
export const listedMessage = message.extend({
  flags: z.array(str),
  match_content: optStr,
  match_subject: optStr,
});

export const list = endpoint({
  method: "GET",
  path: "/messages",
  params: () =>
    z.object({
      anchor: anchor.optional(),
      include_anchor: optBool,
      num_before: z.int().min(0).optional(),
      num_after: z.int().min(0).optional(),
      narrow: narrow.optional(),
      client_gravatar: optBool,
      apply_markdown: optBool,
      use_first_unread_anchor: optBool,
      message_ids: z.array(int).optional(),
      allow_empty_topic_name: optBool,
    }),
  response: () =>
    z.looseObject({
      // For `newest` real servers answer 10^16, beyond the safe-integer range zod's int() allows.
      anchor: z.number().optional(),
      found_newest: optBool,
      found_oldest: optBool,
      found_anchor: optBool,
      history_limited: optBool,
      messages: z.array(listedMessage),
    }),
});

export const matchesNarrow = endpoint({
  method: "GET",
  path: "/messages/matches_narrow",
  params: () => z.object({ msg_ids: z.array(int), narrow }),
  response: () =>
    z.looseObject({
      messages: z.record(str, z.looseObject({ match_content: str, match_subject: str })),
    }),
});

export const updateFlagsForNarrow = endpoint({
  method: "POST",
  path: "/messages/flags/narrow",
  params: () =>
    z.object({
      anchor,
      include_anchor: optBool,
      num_before: z.int().min(0),
      num_after: z.int().min(0),
      narrow,
      op: z.enum(["add", "remove"]),
      flag: z.string().min(1),
    }),
  response: () =>
    z.looseObject({
      processed_count: int,
      updated_count: int,
      first_processed_id: z.int().nullable(),
      last_processed_id: z.int().nullable(),
      found_oldest: bool,
      found_newest: bool,
      ignored_because_not_subscribed_channels: z.array(int).optional(),
    }),
  // Adding or removing a flag twice ends in the same state.
  idempotent: true,
});

const reactionParams = {
  message_id: int,
  emoji_code: optStr,
  reaction_type: emojiReactionType.optional(),
};

export const addReaction = endpoint({
  method: "POST",
  path: "/messages/{message_id}/reactions",
  params: () => z.object({ ...reactionParams, emoji_name: z.string().min(1) }),
  response: () => z.looseObject({}),
  idempotent: false,
});

export const removeReaction = endpoint({
  method: "DELETE",
  path: "/messages/{message_id}/reactions",
  params: () => z.object({ ...reactionParams, emoji_name: z.string().min(1).optional() }),
  response: () => z.looseObject({}),
  idempotent: false,
});

/**
 * DELETE /messages/{message_id}: deletes a message for good. The server lets administrators
 * delete any message, and a user their own (or their bots') while the realm's
 * `can_delete_own_message_group` includes them and within `message_content_delete_limit_seconds`.
 *
 * @example
 * await api.messages.remove({ message_id: 42 });
 */
export const remove = endpoint({
  method: "DELETE",
  path: "/messages/{message_id}",
  params: () => z.object({ message_id: int }),
  response: () => z.looseObject({}),
  idempotent: true,
});

export const reportType = z.enum(["spam", "harassment", "inappropriate", "norms", "other"]);
export type ReportType = z.infer<typeof reportType>;

export const report = endpoint({
  method: "POST",
  path: "/messages/{message_id}/report",
  params: () =>
    z.object({
      message_id: int,
      report_type: reportType,
      description: optStr,
    }),
  response: () => z.looseObject({}),
  idempotent: false,
});

export const messagesEndpoints = {
  send,
  get,
  history,
  update,
  list,
  matchesNarrow,
  updateFlagsForNarrow,
  addReaction,
  removeReaction,
  remove,
  report,
} as const;
