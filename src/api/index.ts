// The wire, in one place: every endpoint grouped by client namespace, plus the shared schemas.
import { eventsEndpoints } from "./events.js";
import { messagesEndpoints } from "./messages.js";
import { usersEndpoints } from "./users.js";

/** Every endpoint, by client namespace. `createClient` turns each into a typed method. */
export const endpoints = {
  events: eventsEndpoints,
  messages: messagesEndpoints,
  users: usersEndpoints,
} as const;
export type Endpoints = typeof endpoints;

export * from "./common.js";
export * from "./endpoint.js";
export * from "./envelope.js";
export * as eventsApi from "./events.js";
export * as messagesApi from "./messages.js";
export * as usersApi from "./users.js";
export { eventSchemas, anyEvent, messageEvent, heartbeatEvent } from "./events.js";
export type {
  AnyEvent,
  EventOf,
  KnownEventType,
  MessageEvent,
  HeartbeatEvent,
  Registration,
  RegisterParams,
} from "./events.js";
export { message } from "./messages.js";
export type { Message, Reaction, Recipient, SendParams } from "./messages.js";
export type { User, OwnUser } from "./users.js";
