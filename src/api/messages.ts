// Messages on the wire: the message object and the messaging endpoints.
import { z } from "zod";
import { endpoint } from "./endpoint.js";
import { emojiReactionType, messageType, narrow } from "./common.js";

export const recipient = z.looseObject({
  id: z.number().int(),
  email: z.string(),
  full_name: z.string(),
  is_mirror_dummy: z.boolean().optional(),
});
export type Recipient = z.infer<typeof recipient>;

export const reaction = z.looseObject({
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.union([emojiReactionType, z.string()]),
  user_id: z.number().int(),
});
export type Reaction = z.infer<typeof reaction>;

export const submessage = z.looseObject({
  id: z.number().int(),
  message_id: z.number().int(),
  sender_id: z.number().int(),
  msg_type: z.string(),
  content: z.string(),
});

export const editHistoryEntry = z.looseObject({
  user_id: z.number().int().nullable(),
  timestamp: z.number().int(),
  prev_content: z.string().optional(),
  prev_rendered_content: z.string().optional(),
  prev_stream: z.number().int().optional(),
  stream: z.number().int().optional(),
  prev_topic: z.string().optional(),
  topic: z.string().optional(),
});
export type EditHistoryEntry = z.infer<typeof editHistoryEntry>;

/** A message as fetched or delivered in a `message` event. */
export const message = z.looseObject({
  id: z.number().int(),
  type: z.enum(["stream", "private"]),
  stream_id: z.number().int().optional(),
  subject: z.string(),
  content: z.string(),
  content_type: z.enum(["text/html", "text/x-markdown"]).optional(),
  timestamp: z.number().int(),
  sender_id: z.number().int(),
  sender_email: z.string(),
  sender_full_name: z.string(),
  sender_realm_str: z.string().optional(),
  avatar_url: z.string().nullable().optional(),
  client: z.string().optional(),
  display_recipient: z.union([z.string(), z.array(recipient)]),
  recipient_id: z.number().int().optional(),
  is_me_message: z.boolean().optional(),
  edit_history: z.array(editHistoryEntry).optional(),
  last_edit_timestamp: z.number().int().optional(),
  last_moved_timestamp: z.number().int().optional(),
  reactions: z.array(reaction).default([]),
  submessages: z.array(submessage).default([]),
  topic_links: z.array(z.looseObject({ text: z.string(), url: z.string() })).default([]),
  flags: z.array(z.string()).optional(),
});
export type Message = z.infer<typeof message>;

/** `to` of POST /messages: a channel name or ID, or a list of user IDs or emails. */
export const sendTo = z.union([
  z.string().min(1),
  z.number().int(),
  z.array(z.number().int()).min(1),
  z.array(z.string().min(1)).min(1),
]);

export const send = endpoint({
  method: "POST",
  path: "/messages",
  params: () =>
    z.object({
      type: messageType,
      to: sendTo,
      content: z.string(),
      topic: z.string().optional(),
      queue_id: z.string().optional(),
      local_id: z.string().optional(),
      read_by_sender: z.boolean().optional(),
      /**
       * A widget for the message (the real server's undocumented parameter): `{ widget_type:
       * "zform", extra_data: { type: "choices", heading, choices: [{ short_name, long_name, reply }] } }`,
       * as an object or its JSON text. Delivered in the message's `submessages`. Polls and todo
       * lists come from content starting `/poll` or `/todo`.
       */
      widget_content: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
    }),
  response: () =>
    z.looseObject({
      id: z.number().int(),
      automatic_new_visibility_policy: z.number().int().optional(),
    }),
  idempotent: false,
});
export type SendParams = z.input<typeof send.params>;

/** `anchor` of GET /messages and flag updates: a message ID or a computed position. */
export const anchor = z.union([
  z.number().int(),
  z.enum(["newest", "oldest", "first_unread"]),
  z.string().regex(/^\d+$/, "must be a message ID, newest, oldest or first_unread"),
]);

export const get = endpoint({
  method: "GET",
  path: "/messages/{message_id}",
  params: () =>
    z.object({
      message_id: z.number().int(),
      apply_markdown: z.boolean().optional(),
      allow_empty_topic_name: z.boolean().optional(),
    }),
  response: () => z.looseObject({ message, raw_content: z.string().optional() }),
});

/** One state of a message in GET /messages/{id}/history, oldest first. */
export const editSnapshot = z.looseObject({
  topic: z.string(),
  content: z.string(),
  rendered_content: z.string(),
  timestamp: z.number().int(),
  user_id: z.number().int().nullable(),
  prev_topic: z.string().optional(),
  stream: z.number().int().optional(),
  prev_stream: z.number().int().optional(),
  prev_content: z.string().optional(),
  prev_rendered_content: z.string().optional(),
  content_html_diff: z.string().optional(),
});
export type EditSnapshot = z.infer<typeof editSnapshot>;

export const history = endpoint({
  method: "GET",
  path: "/messages/{message_id}/history",
  params: () =>
    z.object({
      message_id: z.number().int(),
      allow_empty_topic_name: z.boolean().optional(),
    }),
  response: () => z.looseObject({ message_history: z.array(editSnapshot) }),
});

export const update = endpoint({
  method: "PATCH",
  path: "/messages/{message_id}",
  params: () =>
    z.object({
      message_id: z.number().int(),
      content: z.string().optional(),
      topic: z.string().optional(),
      stream_id: z.number().int().optional(),
      propagate_mode: z.enum(["change_one", "change_later", "change_all"]).optional(),
      send_notification_to_old_thread: z.boolean().optional(),
      send_notification_to_new_thread: z.boolean().optional(),
      prev_content_sha256: z.string().optional(),
    }),
  response: () =>
    z.looseObject({
      detached_uploads: z.array(z.looseObject({})).optional(),
    }),
  idempotent: true,
});

/** A message of GET /messages: the message object plus flags and search highlights. */
export const listedMessage = message.extend({
  flags: z.array(z.string()),
  match_content: z.string().optional(),
  match_subject: z.string().optional(),
});

export const list = endpoint({
  method: "GET",
  path: "/messages",
  params: () =>
    z.object({
      anchor: anchor.optional(),
      include_anchor: z.boolean().optional(),
      num_before: z.number().int().min(0).optional(),
      num_after: z.number().int().min(0).optional(),
      narrow: narrow.optional(),
      client_gravatar: z.boolean().optional(),
      apply_markdown: z.boolean().optional(),
      use_first_unread_anchor: z.boolean().optional(),
      message_ids: z.array(z.number().int()).optional(),
      allow_empty_topic_name: z.boolean().optional(),
    }),
  response: () =>
    z.looseObject({
      // For `newest` real servers answer 10^16, beyond the safe-integer range zod's int() allows.
      anchor: z.number().optional(),
      found_newest: z.boolean().optional(),
      found_oldest: z.boolean().optional(),
      found_anchor: z.boolean().optional(),
      history_limited: z.boolean().optional(),
      messages: z.array(listedMessage),
    }),
});

export const matchesNarrow = endpoint({
  method: "GET",
  path: "/messages/matches_narrow",
  params: () => z.object({ msg_ids: z.array(z.number().int()), narrow }),
  response: () =>
    z.looseObject({
      messages: z.record(
        z.string(),
        z.looseObject({ match_content: z.string(), match_subject: z.string() }),
      ),
    }),
});

export const updateFlagsForNarrow = endpoint({
  method: "POST",
  path: "/messages/flags/narrow",
  params: () =>
    z.object({
      anchor,
      include_anchor: z.boolean().optional(),
      num_before: z.number().int().min(0),
      num_after: z.number().int().min(0),
      narrow,
      op: z.enum(["add", "remove"]),
      flag: z.string().min(1),
    }),
  response: () =>
    z.looseObject({
      processed_count: z.number().int(),
      updated_count: z.number().int(),
      first_processed_id: z.number().int().nullable(),
      last_processed_id: z.number().int().nullable(),
      found_oldest: z.boolean(),
      found_newest: z.boolean(),
      ignored_because_not_subscribed_channels: z.array(z.number().int()).optional(),
    }),
  // Adding or removing a flag twice ends in the same state.
  idempotent: true,
});

const reactionParams = {
  message_id: z.number().int(),
  emoji_code: z.string().optional(),
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

export const reportType = z.enum(["spam", "harassment", "inappropriate", "norms", "other"]);
export type ReportType = z.infer<typeof reportType>;

export const report = endpoint({
  method: "POST",
  path: "/messages/{message_id}/report",
  params: () =>
    z.object({
      message_id: z.number().int(),
      report_type: reportType,
      description: z.string().optional(),
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
  report,
} as const;
