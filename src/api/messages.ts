// Messages on the wire: the message object and the messaging endpoints.
import { z } from "zod";
import { endpoint } from "./endpoint.js";
import { emojiReactionType, messageType } from "./common.js";

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
  params: z.object({
    type: messageType,
    to: sendTo,
    content: z.string(),
    topic: z.string().optional(),
    queue_id: z.string().optional(),
    local_id: z.string().optional(),
    read_by_sender: z.boolean().optional(),
  }),
  response: z.looseObject({
    id: z.number().int(),
    automatic_new_visibility_policy: z.number().int().optional(),
  }),
  idempotent: false,
});
export type SendParams = z.input<typeof send.params>;

export const messagesEndpoints = { send } as const;
