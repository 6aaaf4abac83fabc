// The wire, in one place: every endpoint grouped by client namespace, plus the shared schemas.
import { eventsEndpoints } from "./events.js";
import { messagesEndpoints } from "./messages.js";
import { usersEndpoints } from "./users.js";
import { realmEndpoints } from "./realm.js";
import { subscriptionPropertiesEndpoints } from "./subscriptionProperties.js";
import { navigationViewsEndpoints } from "./navigation.js";
import { pushEndpoints } from "./push.js";
import { authEndpoints } from "./auth.js";

/** Every endpoint, by client namespace. `createClient` turns each into a typed method. */
export const endpoints = {
  events: eventsEndpoints,
  messages: messagesEndpoints,
  users: usersEndpoints,
  realm: realmEndpoints,
  // GET/POST /users/me/subscriptions (issue 3) join this namespace beside updateProperties.
  subscriptions: { ...subscriptionPropertiesEndpoints },
  navigationViews: navigationViewsEndpoints,
  push: pushEndpoints,
  auth: authEndpoints,
} as const;
export type Endpoints = typeof endpoints;

export * from "./common.js";
export * from "./endpoint.js";
export * from "./envelope.js";
export * as eventsApi from "./events.js";
export * as messagesApi from "./messages.js";
export * as usersApi from "./users.js";
export * as realmApi from "./realm.js";
export * as subscriptionPropertiesApi from "./subscriptionProperties.js";
export * as navigationApi from "./navigation.js";
export * as pushApi from "./push.js";
export * as authApi from "./auth.js";
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
export type { UserSettingsDefaults } from "./realm.js";
export type { SubscriptionPropertyChange, SubscriptionProperty } from "./subscriptionProperties.js";
export type { NavigationView } from "./navigation.js";
