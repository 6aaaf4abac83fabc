// The wire, in one place: every endpoint grouped by client namespace, plus the shared schemas.
import { channelsEndpoints } from "./channels.js";
import { eventsEndpoints } from "./events.js";
import { messagesEndpoints } from "./messages.js";
import { scheduledMessagesEndpoints } from "./scheduled.js";
import { serverEndpoints } from "./server.js";
import { subscriptionsEndpoints } from "./subscriptions.js";
import { topicsEndpoints } from "./topics.js";
import { uploadsEndpoints } from "./uploads.js";
import { usersEndpoints } from "./users.js";
import { realmEndpoints } from "./realm.js";
import { subscriptionPropertiesEndpoints } from "./subscriptionProperties.js";
import { navigationViewsEndpoints } from "./navigation.js";
import { pushEndpoints } from "./push.js";
import { authEndpoints } from "./auth.js";
import { typingEndpoints } from "./typing.js";
import { submessageEndpoints } from "./submessages.js";

/** Every endpoint, by client namespace. `createClient` turns each into a typed method. */
export const endpoints = {
  events: eventsEndpoints,
  messages: { ...messagesEndpoints, ...submessageEndpoints },
  users: usersEndpoints,
  scheduledMessages: scheduledMessagesEndpoints,
  topics: topicsEndpoints,
  uploads: uploadsEndpoints,
  subscriptions: { ...subscriptionsEndpoints, ...subscriptionPropertiesEndpoints },
  channels: channelsEndpoints,
  server: serverEndpoints,
  realm: realmEndpoints,
  navigationViews: navigationViewsEndpoints,
  push: pushEndpoints,
  auth: authEndpoints,
  typing: typingEndpoints,
} as const;
export type Endpoints = typeof endpoints;

export * from "./common.js";
export * from "./endpoint.js";
export * from "./envelope.js";
export * as eventsApi from "./events.js";
export * as messagesApi from "./messages.js";
export * as usersApi from "./users.js";
export * as scheduledMessagesApi from "./scheduled.js";
export * as topicsApi from "./topics.js";
export * as uploadsApi from "./uploads.js";
export * as subscriptionsApi from "./subscriptions.js";
export * as channelsApi from "./channels.js";
export * as serverApi from "./server.js";
export * as realmApi from "./realm.js";
export * as subscriptionPropertiesApi from "./subscriptionProperties.js";
export * as navigationApi from "./navigation.js";
export * as pushApi from "./push.js";
export * as authApi from "./auth.js";
export * as submessagesApi from "./submessages.js";
export {
  submessageContent,
  pollOptionKey,
  todoTaskKey,
  widgetDataSchemas,
  submessageEvent,
} from "./submessages.js";
export type { PollData, TodoData, WidgetData, SubmessageEvent } from "./submessages.js";
export { eventSchemas, anyEvent, messageEvent, heartbeatEvent } from "./events.js";
export type {
  RealmEvent,
  ReactionEvent,
  UpdateMessageEvent,
  UpdateMessageFlagsEvent,
  UserTopicEvent,
  SubscriptionEvent,
  ScheduledMessagesEvent,
} from "./events.js";
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
export type { Message, Reaction, Recipient, SendParams, EditSnapshot } from "./messages.js";
export type { ScheduleParams } from "./scheduled.js";
export type { TypingParams } from "./typing.js";
export type { UploadParams, UploadResult, UploadSource } from "./uploads.js";
export type { Subscription } from "./subscriptions.js";
export type { ServerSettings } from "./server.js";
export type { User, OwnUser } from "./users.js";
export type { UserSettingsDefaults } from "./realm.js";
export type { SubscriptionPropertyChange, SubscriptionProperty } from "./subscriptionProperties.js";
export type { NavigationView } from "./navigation.js";
