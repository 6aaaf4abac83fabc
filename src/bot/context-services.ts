// What every message's context shares (ContextServices), built from the bot's parts once the bot knows who it is.
import type { ApiClient } from "../client/client.js";
import type { Logger } from "../log/logger.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import type { ServerFacts } from "../context/actions.js";
import type { ContextServices, MessageContext } from "../context/context.js";
import type { Dialogs } from "../context/session.js";
import type { Follows } from "../context/follows.js";
import type { BotAccount } from "../model/account.js";
import type { Cards } from "../cards/index.js";
import type { Delivery } from "./delivery.js";
import type { BotServices } from "./services.js";

export interface ContextParts {
  api: ApiClient;
  log: Logger;
  storage: KeyValueStore;
  delivery: Delivery;
  dialogs: Dialogs<MessageContext>;
  follows: Follows;
  outside: BotServices;
  cards: Cards;
  now(): number;
  timeZone(): string;
  server(): ServerFacts;
}

/**
 * The services of every context. `timeZone` is an accessor added once the object is built, not a
 * getter in the literal: V8 makes an object literal with a getter in dictionary mode, where each
 * read from optimized code is a generic lookup, and every context reads these.
 */
export function contextServices(me: BotAccount, p: ContextParts): ContextServices {
  const services: Omit<ContextServices, "timeZone"> = {
    api: p.api,
    me,
    log: p.log,
    sendMessage: p.delivery.outbox.send,
    server: p.server,
    sessions: p.storage.namespace("topicbot:sessions"),
    dialogs: p.dialogs,
    follows: p.follows,
    now: p.now,
    guard: p.delivery.replies.guard,
    firstReply: p.outside.firstReply,
    cards: p.cards.service,
  };
  return Object.defineProperty(services, "timeZone", {
    get: p.timeZone,
    enumerable: true,
  }) as ContextServices;
}
