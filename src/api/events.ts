// Event queues on the wire: registration, polling, deletion and the event shapes.
import { z } from "zod";
import { endpoint } from "./endpoint.js";
import { message } from "./messages.js";

export const register = endpoint({
  method: "POST",
  path: "/register",
  params: z.object({
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
  response: z.looseObject({
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
});
export type RegisterParams = z.input<typeof register.params>;
export type Registration = z.output<typeof register.response>;

/** Any event: every one has an `id` and a `type`; the rest depends on the type. */
export const anyEvent = z.looseObject({ id: z.number().int(), type: z.string() });
export type AnyEvent = z.infer<typeof anyEvent>;

export const get = endpoint({
  method: "GET",
  path: "/events",
  params: z.object({
    queue_id: z.string(),
    last_event_id: z.number().int().optional(),
    dont_block: z.boolean().optional(),
  }),
  response: z.looseObject({ events: z.array(anyEvent), queue_id: z.string().optional() }),
  longPoll: true,
});

export const deleteQueue = endpoint({
  method: "DELETE",
  path: "/events",
  params: z.object({ queue_id: z.string() }),
  response: z.looseObject({}),
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

/** Schemas of the event types this library knows; others arrive as `AnyEvent`. */
export const eventSchemas = {
  heartbeat: heartbeatEvent,
  message: messageEvent,
} as const;
export type KnownEventType = keyof typeof eventSchemas;
export type EventOf<T extends string> = T extends KnownEventType
  ? z.infer<(typeof eventSchemas)[T]>
  : AnyEvent;

export const eventsEndpoints = { register, get, deleteQueue } as const;
