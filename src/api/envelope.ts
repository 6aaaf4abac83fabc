// The response envelope every endpoint shares: success and error bodies, and the error codes.
import { z } from "zod";
import { optInt, optNullInt } from "./leaves.js";

/**
 * Error codes the contract names, plus those the sandbox gives where the contract is silent
 * (`AUTHENTICATION_FAILED` for POST /fetch_api_key, `UNAUTHORIZED` without credentials). Servers
 * may send others, so `code` stays a string on the wire; the sandbox may only give these.
 */
export const ERROR_CODES = [
  "BAD_REQUEST",
  "BAD_NARROW",
  "INVALID_API_KEY",
  "REQUEST_VARIABLE_MISSING",
  "USER_DEACTIVATED",
  "REALM_DEACTIVATED",
  "RATE_LIMIT_HIT",
  "STREAM_DOES_NOT_EXIST",
  "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
  "TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
  "REACTION_ALREADY_EXISTS",
  "REACTION_DOES_NOT_EXIST",
  "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
  "NO_ACTIVE_PUSH_DEVICE",
  "ADMIN_ACTION_REQUIRED",
  "FAILED_TO_CONNECT_BOUNCER",
  "INTERNAL_SERVER_ERROR_ON_BOUNCER",
  "BAD_EVENT_QUEUE_ID",
  "UNAUTHORIZED",
  "AUTHENTICATION_FAILED",
] as const;
export type KnownErrorCode = (typeof ERROR_CODES)[number];

/** Keys of the envelope itself; everything else on a response is payload or extra error data. */
export const ENVELOPE_KEYS = ["result", "msg", "code", "ignored_parameters_unsupported"] as const;

export const successEnvelope = z.looseObject({
  result: z.literal("success"),
  msg: z.string(),
  ignored_parameters_unsupported: z.array(z.string()).optional(),
});
export type SuccessEnvelope = z.infer<typeof successEnvelope>;

/**
 * An error body: `result`, `msg`, `code` plus extra keys such as `var_name`,
 * `stream`, `stream_id`, `queue_id`, `parameters` or `retry-after`.
 * `code` is optional on the wire only because servers below feature level 76 omit it.
 */
export const errorEnvelope = z.looseObject({
  result: z.literal("error"),
  msg: z.string(),
  code: z.string().optional(),
  var_name: z.string().optional(),
  stream: z.string().optional(),
  stream_id: z.number().optional(),
  queue_id: z.string().optional(),
  parameters: z.string().optional(),
  "retry-after": z.number().optional(),
  /** MOVE_MESSAGES_TIME_LIMIT_EXCEEDED: the part of the topic the requester may move. */
  first_message_id_allowed_to_move: optNullInt,
  total_messages_allowed_to_move: optInt,
  total_messages_in_topic: optInt,
});
export type ErrorEnvelope = z.infer<typeof errorEnvelope>;

export const envelope = z.discriminatedUnion("result", [successEnvelope, errorEnvelope]);
