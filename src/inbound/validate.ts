// Validating events off the wire: a fast check for the common message event, full zod validation otherwise.
import { eventSchemas, type AnyEvent, type KnownEventType } from "../api/events.js";

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);
const isString = (v: unknown): v is string => typeof v === "string";
const isEmptyArray = (v: unknown): boolean => Array.isArray(v) && v.length === 0;
const optional = (v: unknown, check: (v: unknown) => boolean): boolean =>
  v === undefined || check(v);

function isRecipient(r: unknown): boolean {
  if (typeof r !== "object" || r === null) return false;
  const { id, email, full_name } = r as Record<string, unknown>;
  return isInt(id) && isString(email) && isString(full_name);
}

function isStringArray(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const item of v) if (typeof item !== "string") return false;
  return true;
}

/**
 * Whether `raw` is a new message event exactly as the `message` event schema accepts it, with
 * nothing the schema would default or look into further (no reactions, submessages, topic links,
 * edit history). Exists because it is the event a bot gets most, and parsing it with zod costs
 * about 40 times this check per event; anything it does not vouch for goes through zod.
 */
export function isPlainMessageEvent(raw: AnyEvent): boolean {
  const event = raw as Record<string, unknown>;
  if (event.type !== "message" || !isInt(event.id) || !isStringArray(event.flags)) return false;
  if (!optional(event.local_message_id, isString)) return false;
  const m = event.message as Record<string, unknown> | null;
  if (typeof m !== "object" || m === null) return false;
  const recipient = m.display_recipient;
  return (
    isInt(m.id) &&
    (m.type === "stream" || m.type === "private") &&
    isString(m.subject) &&
    isString(m.content) &&
    isInt(m.timestamp) &&
    isInt(m.sender_id) &&
    isString(m.sender_email) &&
    isString(m.sender_full_name) &&
    (isString(recipient) || (Array.isArray(recipient) && recipient.every(isRecipient))) &&
    optional(m.stream_id, isInt) &&
    isEmptyArray(m.reactions) &&
    isEmptyArray(m.submessages) &&
    isEmptyArray(m.topic_links) &&
    m.edit_history === undefined &&
    optional(m.content_type, (v) => v === "text/html" || v === "text/x-markdown") &&
    optional(m.sender_realm_str, isString) &&
    optional(m.avatar_url, (v) => v === null || isString(v)) &&
    optional(m.client, isString) &&
    optional(m.recipient_id, isInt) &&
    optional(m.is_me_message, (v) => typeof v === "boolean") &&
    optional(m.last_edit_timestamp, isInt) &&
    optional(m.last_moved_timestamp, isInt) &&
    optional(m.flags, isStringArray)
  );
}

/**
 * The event validated: as it came when the fast check vouches for it or its type is unknown,
 * zod's parse of it otherwise; undefined with zod's first issue when it is malformed.
 */
export function validateEvent(
  raw: AnyEvent,
): { event: AnyEvent; issue?: undefined } | { event?: undefined; issue: string } {
  if (isPlainMessageEvent(raw)) return { event: raw };
  const schema = eventSchemas[raw.type as KnownEventType] as
    (typeof eventSchemas)[KnownEventType] | undefined;
  if (!schema) return { event: raw };
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { event: parsed.data as AnyEvent };
  return { issue: parsed.error.issues[0]?.message ?? "invalid" };
}
