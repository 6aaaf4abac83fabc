// Fast paths for the two calls a bot makes for every message (POST /messages, GET /events): typeof checks that vouch for what zod would accept unchanged.
import type { Endpoint } from "../api/endpoint.js";
import { get as getEvents } from "../api/events.js";
import { send as sendMessage } from "../api/messages.js";

/**
 * A fast path for one endpoint. Each check returns true only when zod's parse would succeed and
 * give back the same values (no defaults filled, nothing transformed), so the caller may use the
 * input as the parse result; anything a check does not vouch for goes through zod, which also
 * words the error.
 */
export interface FastPath {
  /** The call's parameters are valid as given (unknown keys make it answer false). */
  params(params: Record<string, unknown>): boolean;
  /** The success body is valid as it came. */
  response(body: Record<string, unknown>): boolean;
}

// zod's `.int()` accepts safe integers only.
const isInt = (v: unknown): boolean => Number.isSafeInteger(v);
const isNonEmptyString = (v: unknown): boolean => typeof v === "string" && v.length > 0;

/** `to` of POST /messages as `sendTo` accepts it: a name or ID, or a non-empty list of IDs or of names. */
function isSendTo(to: unknown): boolean {
  if (isNonEmptyString(to) || isInt(to)) return true;
  if (!Array.isArray(to) || to.length === 0) return false;
  const check = isInt(to[0]) ? isInt : isNonEmptyString;
  for (const item of to) if (!check(item)) return false;
  return true;
}

const MESSAGE_TYPES = new Set(["direct", "channel", "stream", "private"]);

/** POST /messages with the parameters replies use: type, to, content, topic. */
const sendFastPath: FastPath = {
  params(p) {
    for (const key in p) {
      if (key !== "type" && key !== "to" && key !== "content" && key !== "topic") return false;
    }
    return (
      MESSAGE_TYPES.has(p.type as string) &&
      isSendTo(p.to) &&
      typeof p.content === "string" &&
      (p.topic === undefined || typeof p.topic === "string")
    );
  },
  response: (body) =>
    isInt(body.id) &&
    (body.automatic_new_visibility_policy === undefined ||
      isInt(body.automatic_new_visibility_policy)),
};

/** GET /events: the long poll. Each event's own shape is checked later, by type (events/validate.ts). */
const pollFastPath: FastPath = {
  params(p) {
    for (const key in p) {
      if (key !== "queue_id" && key !== "last_event_id" && key !== "dont_block") return false;
    }
    return (
      typeof p.queue_id === "string" &&
      (p.last_event_id === undefined || isInt(p.last_event_id)) &&
      (p.dont_block === undefined || typeof p.dont_block === "boolean")
    );
  },
  response(body) {
    const events = body.events;
    if (!Array.isArray(events)) return false;
    if (body.queue_id !== undefined && typeof body.queue_id !== "string") return false;
    for (const event of events) {
      if (typeof event !== "object" || event === null) return false;
      const { id, type } = event as Record<string, unknown>;
      if (!isInt(id) || typeof type !== "string") return false;
    }
    return true;
  },
};

/** The fast path of an endpoint, if it has one. */
export const fastPaths: ReadonlyMap<Endpoint, FastPath> = new Map<Endpoint, FastPath>([
  [sendMessage as unknown as Endpoint, sendFastPath],
  [getEvents as unknown as Endpoint, pollFastPath],
]);
