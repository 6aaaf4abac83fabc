// Event queues on the wire: registration, polling, deletion and the event shapes.
import { z } from "zod";
import { bool, int, optBool, optInt, optNullInt, optStr, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";
import { message, topicLinks } from "./messages.js";
import { realmUserAddEvent, user, userStatusEvent } from "./users.js";
import { subscriptionUpdateEvent } from "./subscriptionProperties.js";
import { submessageEvent } from "./submessages.js";
import { bothFeatureLevelNames, featureLevelFields } from "./names.js";

export const register = endpoint({
  method: "POST",
  path: "/register",
  params: () =>
    z.object({
      apply_markdown: optBool,
      client_gravatar: optBool,
      include_subscribers: optBool,
      slim_presence: optBool,
      presence_history_limit_days: optInt,
      event_types: z.array(str).optional(),
      all_public_streams: optBool,
      client_capabilities: z.record(str, bool).optional(),
      fetch_event_types: z.array(str).optional(),
      narrow: z.array(z.tuple([str, str])).optional(),
    }),
  // Registering twice only leaves an extra queue for the idle collector.
  response: () =>
    z
      .looseObject({
        queue_id: z.string().nullable(),
        last_event_id: int,
        // The contract's `service_feature_level`; real servers say `zulip_feature_level`.
        ...featureLevelFields,
        zulip_version: optStr,
        zulip_merge_base: optStr,
        event_queue_longpoll_timeout_seconds: z.number().optional(),
        max_message_length: optInt,
        max_topic_length: optInt,
        max_file_upload_size_mib: z.number().optional(),
        realm_empty_topic_display_name: optStr,
        realm_url: optStr,
        // The message edit and move rules (PATCH /messages/{id}); null: no time limit.
        realm_allow_message_editing: optBool,
        realm_message_content_edit_limit_seconds: optNullInt,
        realm_message_content_delete_limit_seconds: optNullInt,
        realm_move_messages_within_stream_limit_seconds: optNullInt,
        realm_move_messages_between_streams_limit_seconds: optNullInt,
        user_id: optInt,
        email: optStr,
        full_name: optStr,
      })
      .transform(bothFeatureLevelNames),
  idempotent: true,
});
export type RegisterParams = z.input<typeof register.params>;
export type Registration = z.output<typeof register.response>;

/** Any event: every one has an `id` and a `type`; the rest depends on the type. */
export const anyEvent = z.looseObject({ id: int, type: str });
export type AnyEvent = z.infer<typeof anyEvent>;

export const get = endpoint({
  method: "GET",
  path: "/events",
  params: () =>
    z.object({
      queue_id: str,
      last_event_id: optInt,
      dont_block: optBool,
    }),
  response: () => z.looseObject({ events: z.array(anyEvent), queue_id: optStr }),
  longPoll: true,
});

export const deleteQueue = endpoint({
  method: "DELETE",
  path: "/events",
  params: () => z.object({ queue_id: str }),
  response: () => z.looseObject({}),
  idempotent: true,
});

export const heartbeatEvent = z.looseObject({ id: int, type: z.literal("heartbeat") });
export type HeartbeatEvent = z.infer<typeof heartbeatEvent>;

export const messageEvent = z.looseObject({
  id: int,
  type: z.literal("message"),
  message,
  flags: z.array(str).default([]),
  local_message_id: optStr,
});
export type MessageEvent = z.infer<typeof messageEvent>;

export const reactionEvent = z.looseObject({
  id: int,
  type: z.literal("reaction"),
  op: z.enum(["add", "remove"]),
  message_id: int,
  emoji_name: str,
  emoji_code: str,
  reaction_type: str,
  user_id: int,
});
export type ReactionEvent = z.infer<typeof reactionEvent>;

export const updateMessageEvent = z.looseObject({
  id: int,
  type: z.literal("update_message"),
  user_id: z.int().nullable(),
  message_id: int,
  message_ids: z.array(int),
  flags: z.array(str),
  edit_timestamp: int,
  rendering_only: bool,
  /** The channel the message was in (channel messages only), before any move. */
  stream_id: optInt,
  stream_name: optStr,
  /** Set when the messages moved to another channel. */
  new_stream_id: optInt,
  /** The topic before, set on every move (topic or channel); `subject` only when the topic changed. */
  orig_subject: optStr,
  subject: optStr,
  /** Links the realm's linkifiers found in the new topic (present with `subject`). */
  topic_links: topicLinks.optional(),
  propagate_mode: z.enum(["change_one", "change_later", "change_all"]).optional(),
  orig_content: optStr,
  orig_rendered_content: optStr,
  content: optStr,
  rendered_content: optStr,
  is_me_message: optBool,
});
export type UpdateMessageEvent = z.infer<typeof updateMessageEvent>;

export const updateMessageFlagsEvent = z.looseObject({
  id: int,
  type: z.literal("update_message_flags"),
  op: z.enum(["add", "remove"]),
  flag: str,
  messages: z.array(int),
  all: optBool,
});
export type UpdateMessageFlagsEvent = z.infer<typeof updateMessageFlagsEvent>;

/** Visibility policy of a topic for one user: 0 none, 1 muted, 2 unmuted, 3 followed. */
export const userTopicEvent = z.looseObject({
  id: int,
  type: z.literal("user_topic"),
  stream_id: int,
  topic_name: str,
  last_updated: int,
  visibility_policy: int,
});
export type UserTopicEvent = z.infer<typeof userTopicEvent>;

export const subscriptionEvent = z.looseObject({
  id: int,
  type: z.literal("subscription"),
  op: str,
});
export type SubscriptionEvent = z.infer<typeof subscriptionEvent>;

export const scheduledMessagesEvent = z.looseObject({
  id: int,
  type: z.literal("scheduled_messages"),
  op: z.enum(["add", "update", "remove"]),
});
export type ScheduledMessagesEvent = z.infer<typeof scheduledMessagesEvent>;

/** `delete_message`: one message (`message_id`) or, with `bulk_message_deletion`, several (`message_ids`). */
export const deleteMessageEvent = z.looseObject({
  id: int,
  type: z.literal("delete_message"),
  message_type: z.enum(["stream", "private"]),
  message_id: optInt,
  message_ids: z.array(int).optional(),
  stream_id: optInt,
  topic: optStr,
});
export type DeleteMessageEvent = z.infer<typeof deleteMessageEvent>;

/** `typing`: someone started or stopped typing in a direct message or (FL58) a channel topic. */
export const typingEvent = z.looseObject({
  id: int,
  type: z.literal("typing"),
  op: z.enum(["start", "stop"]),
  message_type: z.enum(["direct", "private", "stream"]),
  sender: z.looseObject({ user_id: int, email: str }),
  recipients: z.array(z.looseObject({ user_id: int, email: str })).optional(),
  stream_id: optInt,
  topic: optStr,
});
export type TypingEvent = z.infer<typeof typingEvent>;

/** `presence`: a user's presence changed; `presence` is keyed by client name. */
export const presenceEvent = z.looseObject({
  id: int,
  type: z.literal("presence"),
  user_id: int,
  email: str,
  server_timestamp: z.number(),
  presence: z.record(str, z.looseObject({ client: optStr, status: str, timestamp: z.number() })),
});
export type PresenceEvent = z.infer<typeof presenceEvent>;

/** `realm_user` with `op: "update"`: `person` holds the user ID and only the fields that changed. */
export const realmUserUpdateEvent = z.looseObject({
  id: int,
  type: z.literal("realm_user"),
  op: z.literal("update"),
  person: user.partial().extend({ user_id: int }),
});

/** `realm_user` with `op: "remove"` (a user became inaccessible; deactivation is an update). */
export const realmUserRemoveEvent = z.looseObject({
  id: int,
  type: z.literal("realm_user"),
  op: z.literal("remove"),
  person: z.looseObject({ user_id: int, full_name: optStr }),
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
  id: int,
  type: z.literal("stream"),
  op: str,
  streams: z.array(z.looseObject({ stream_id: int, name: str })).optional(),
  stream_id: optInt,
  name: optStr,
  property: optStr,
  value: z.unknown().optional(),
});
export type StreamEvent = z.infer<typeof streamEvent>;

/** `restart`: the server restarted (or was upgraded); the queue survives. */
export const restartEvent = z.looseObject({
  id: int,
  type: z.literal("restart"),
  zulip_version: optStr,
  zulip_feature_level: optInt,
  server_generation: z.number().optional(),
});
export type RestartEvent = z.infer<typeof restartEvent>;

/**
 * `realm`: an organization setting changed. Most settings come as `op: "update"` with
 * `property` and `value`; the message edit settings (`allow_message_editing`,
 * `message_content_edit_limit_seconds`, the move limits) as `op: "update_dict"` with
 * `property: "default"` and the changed settings in `data`.
 */
export const realmEvent = z.looseObject({
  id: int,
  type: z.literal("realm"),
  op: str,
  property: optStr,
  value: z.unknown().optional(),
  data: z.looseObject({}).optional(),
});
export type RealmEvent = z.infer<typeof realmEvent>;

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
  submessage: submessageEvent,
  realm: realmEvent,
} as const;
export type KnownEventType = keyof typeof eventSchemas;

/**
 * Every event type the server documents for GET /events: what `bot.on` takes, so that a misspelt
 * type does not compile. Those with a schema above arrive typed; the others as AnyEvent.
 */
export const SERVER_EVENT_TYPES = [
  "alert_words",
  "attachment",
  "custom_profile_fields",
  "default_stream_groups",
  "default_streams",
  "delete_message",
  "drafts",
  "has_zoom_token",
  "heartbeat",
  "invites_changed",
  "message",
  "muted_topics",
  "muted_users",
  "onboarding_steps",
  "presence",
  "reaction",
  "realm",
  "realm_bot",
  "realm_domains",
  "realm_emoji",
  "realm_export",
  "realm_export_consent",
  "realm_filters",
  "realm_linkifiers",
  "realm_playgrounds",
  "realm_user",
  "realm_user_settings_defaults",
  "restart",
  "saved_snippets",
  "scheduled_messages",
  "stream",
  "submessage",
  "subscription",
  "typing",
  "typing_edit_message",
  "update_display_settings",
  "update_global_notifications",
  "update_message",
  "update_message_flags",
  "user_group",
  "user_settings",
  "user_status",
  "user_topic",
  "web_reload_client",
] as const;
export type ServerEventType = (typeof SERVER_EVENT_TYPES)[number];
export type EventOf<T extends string> = T extends KnownEventType
  ? z.infer<(typeof eventSchemas)[T]>
  : AnyEvent;

export const eventsEndpoints = { register, get, deleteQueue } as const;
