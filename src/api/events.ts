// Event queues on the wire: registration, polling, deletion and the event shapes.
import { z } from "zod";
import { endpoint } from "./endpoint.js";
import { message } from "./messages.js";
import { realmUserAddEvent, user, userStatusEvent } from "./users.js";
import { subscriptionUpdateEvent } from "./subscriptionProperties.js";

export const register = endpoint({
  method: "POST",
  path: "/register",
  params: () =>
    z.object({
      apply_markdown: z.boolean().optional(),
      client_gravatar: z.boolean().optional(),
      include_subscribers: z.boolean().optional(),
      slim_presence: z.boolean().optional(),
      presence_history_limit_days: z.number().int().optional(),
      event_types: z.array(z.string()).optional(),
      all_public_streams: z.boolean().optional(),
      client_capabilities: z.record(z.string(), z.boolean()).optional(),
      fetch_event_types: z.array(z.string()).optional(),
      narrow: z.array(z.tuple([z.string(), z.string()])).optional(),
    }),
  // Registering twice only leaves an extra queue for the idle collector.
  response: () =>
    z.looseObject({
      queue_id: z.string().nullable(),
      last_event_id: z.number().int(),
      zulip_feature_level: z.number().int(),
      zulip_version: z.string().optional(),
      zulip_merge_base: z.string().optional(),
      event_queue_longpoll_timeout_seconds: z.number().optional(),
      max_message_length: z.number().int().optional(),
      max_topic_length: z.number().int().optional(),
      max_file_upload_size_mib: z.number().optional(),
      realm_empty_topic_display_name: z.string().optional(),
      realm_url: z.string().optional(),
      user_id: z.number().int().optional(),
      email: z.string().optional(),
      full_name: z.string().optional(),
    }),
  idempotent: true,
});
export type RegisterParams = z.input<typeof register.params>;
export type Registration = z.output<typeof register.response>;

/** Any event: every one has an `id` and a `type`; the rest depends on the type. */
export const anyEvent = z.looseObject({ id: z.number().int(), type: z.string() });
export type AnyEvent = z.infer<typeof anyEvent>;

export const get = endpoint({
  method: "GET",
  path: "/events",
  params: () =>
    z.object({
      queue_id: z.string(),
      last_event_id: z.number().int().optional(),
      dont_block: z.boolean().optional(),
    }),
  response: () => z.looseObject({ events: z.array(anyEvent), queue_id: z.string().optional() }),
  longPoll: true,
});

export const deleteQueue = endpoint({
  method: "DELETE",
  path: "/events",
  params: () => z.object({ queue_id: z.string() }),
  response: () => z.looseObject({}),
  idempotent: true,
});

export const heartbeatEvent = z.looseObject({ id: z.number().int(), type: z.literal("heartbeat") });
export type HeartbeatEvent = z.infer<typeof heartbeatEvent>;

export const messageEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("message"),
  message,
  flags: z.array(z.string()).default([]),
  local_message_id: z.string().optional(),
});
export type MessageEvent = z.infer<typeof messageEvent>;

export const reactionEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("reaction"),
  op: z.enum(["add", "remove"]),
  message_id: z.number().int(),
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.string(),
  user_id: z.number().int(),
});
export type ReactionEvent = z.infer<typeof reactionEvent>;

export const updateMessageEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("update_message"),
  user_id: z.number().int().nullable(),
  message_id: z.number().int(),
  message_ids: z.array(z.number().int()),
  flags: z.array(z.string()),
  edit_timestamp: z.number().int(),
  rendering_only: z.boolean(),
  stream_id: z.number().int().optional(),
  new_stream_id: z.number().int().optional(),
  orig_subject: z.string().optional(),
  subject: z.string().optional(),
  propagate_mode: z.string().optional(),
  orig_content: z.string().optional(),
  orig_rendered_content: z.string().optional(),
  content: z.string().optional(),
  rendered_content: z.string().optional(),
  is_me_message: z.boolean().optional(),
});
export type UpdateMessageEvent = z.infer<typeof updateMessageEvent>;

export const updateMessageFlagsEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("update_message_flags"),
  op: z.enum(["add", "remove"]),
  flag: z.string(),
  messages: z.array(z.number().int()),
  all: z.boolean().optional(),
});
export type UpdateMessageFlagsEvent = z.infer<typeof updateMessageFlagsEvent>;

/** Visibility policy of a topic for one user: 0 none, 1 muted, 2 unmuted, 3 followed. */
export const userTopicEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("user_topic"),
  stream_id: z.number().int(),
  topic_name: z.string(),
  last_updated: z.number().int(),
  visibility_policy: z.number().int(),
});
export type UserTopicEvent = z.infer<typeof userTopicEvent>;

export const subscriptionEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("subscription"),
  op: z.string(),
});
export type SubscriptionEvent = z.infer<typeof subscriptionEvent>;

export const scheduledMessagesEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("scheduled_messages"),
  op: z.enum(["add", "update", "remove"]),
});
export type ScheduledMessagesEvent = z.infer<typeof scheduledMessagesEvent>;

/** `delete_message`: one message (`message_id`) or, with `bulk_message_deletion`, several (`message_ids`). */
export const deleteMessageEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("delete_message"),
  message_type: z.enum(["stream", "private"]),
  message_id: z.number().int().optional(),
  message_ids: z.array(z.number().int()).optional(),
  stream_id: z.number().int().optional(),
  topic: z.string().optional(),
});
export type DeleteMessageEvent = z.infer<typeof deleteMessageEvent>;

/** `typing`: someone started or stopped typing in a direct message or (FL58) a channel topic. */
export const typingEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("typing"),
  op: z.enum(["start", "stop"]),
  message_type: z.enum(["direct", "private", "stream"]),
  sender: z.looseObject({ user_id: z.number().int(), email: z.string() }),
  recipients: z.array(z.looseObject({ user_id: z.number().int(), email: z.string() })).optional(),
  stream_id: z.number().int().optional(),
  topic: z.string().optional(),
});
export type TypingEvent = z.infer<typeof typingEvent>;

/** `presence`: a user's presence changed; `presence` is keyed by client name. */
export const presenceEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("presence"),
  user_id: z.number().int(),
  email: z.string(),
  server_timestamp: z.number(),
  presence: z.record(
    z.string(),
    z.looseObject({ client: z.string().optional(), status: z.string(), timestamp: z.number() }),
  ),
});
export type PresenceEvent = z.infer<typeof presenceEvent>;

/** `realm_user` with `op: "update"`: `person` holds the user ID and only the fields that changed. */
export const realmUserUpdateEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("realm_user"),
  op: z.literal("update"),
  person: user.partial().extend({ user_id: z.number().int() }),
});

/** `realm_user` with `op: "remove"` (a user became inaccessible; deactivation is an update). */
export const realmUserRemoveEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("realm_user"),
  op: z.literal("remove"),
  person: z.looseObject({ user_id: z.number().int(), full_name: z.string().optional() }),
});

/** Every `realm_user` event: narrow on `op`. */
export const realmUserEvent = z.discriminatedUnion("op", [
  realmUserAddEvent,
  realmUserUpdateEvent,
  realmUserRemoveEvent,
]);
export type RealmUserEvent = z.infer<typeof realmUserEvent>;

/** `subscription` events: `add`, `remove`, `peer_add`, `peer_remove`, and `update` of one property. */
export const subscriptionAnyEvent = z.union([subscriptionUpdateEvent, subscriptionEvent]);

/** `stream`: channels created, deleted or changed (`op`: `create`, `delete`, `update`). */
export const streamEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("stream"),
  op: z.string(),
  streams: z.array(z.looseObject({ stream_id: z.number().int(), name: z.string() })).optional(),
  stream_id: z.number().int().optional(),
  name: z.string().optional(),
  property: z.string().optional(),
  value: z.unknown().optional(),
});
export type StreamEvent = z.infer<typeof streamEvent>;

/** `restart`: the server restarted (or was upgraded); the queue survives. */
export const restartEvent = z.looseObject({
  id: z.number().int(),
  type: z.literal("restart"),
  zulip_version: z.string().optional(),
  zulip_feature_level: z.number().int().optional(),
  server_generation: z.number().optional(),
});
export type RestartEvent = z.infer<typeof restartEvent>;

/** Schemas of the event types this library knows; others arrive as `AnyEvent`. */
export const eventSchemas = {
  heartbeat: heartbeatEvent,
  message: messageEvent,
  reaction: reactionEvent,
  update_message: updateMessageEvent,
  update_message_flags: updateMessageFlagsEvent,
  delete_message: deleteMessageEvent,
  user_topic: userTopicEvent,
  subscription: subscriptionAnyEvent,
  scheduled_messages: scheduledMessagesEvent,
  typing: typingEvent,
  presence: presenceEvent,
  realm_user: realmUserEvent,
  user_status: userStatusEvent,
  stream: streamEvent,
  restart: restartEvent,
} as const;
export type KnownEventType = keyof typeof eventSchemas;
export type EventOf<T extends string> = T extends KnownEventType
  ? z.infer<(typeof eventSchemas)[T]>
  : AnyEvent;

export const eventsEndpoints = { register, get, deleteQueue } as const;
