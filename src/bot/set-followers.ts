// The bot's parts that follow its active plugin set across reloads: cards (a click finds its action in the active set's router) and topic moves (the running plugins' sessions, the overlap lanes every set shares).
import type { ApiClient } from "../client/client.js";
import type { Logger } from "../log/logger.js";
import type { Message } from "../api/messages.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import type { Directory } from "../context/directory.js";
import type { Dialogs } from "../context/session.js";
import type { Follows } from "../context/follows.js";
import type { MessageContext } from "../context/context.js";
import type { EventEmitter } from "eventemitter3";
import type { Router } from "../dispatch/router.js";
import type { OverlapRoom } from "../dispatch/overlap-lanes.js";
import type { RespondTo } from "../dispatch/gate.js";
import { TopicMoves } from "../dispatch/topic-moves.js";
import { systemClock, type SchedulerClock } from "../scheduler/clock.js";
import { createCards, type Cards } from "../cards/index.js";
import type { Plugin, PluginInstance } from "./plugin.js";

export interface SetFollowerDeps {
  api: ApiClient;
  log: Logger;
  storage: KeyValueStore;
  bus: EventEmitter;
  directory: Directory;
  dialogs: Dialogs<MessageContext>;
  follows: Follows;
  overlap: OverlapRoom;
  prefix: string;
  respondTo: RespondTo;
  now(): number;
  timeZone(): string;
  timers: SchedulerClock | undefined;
  /** The active plugin set's router. */
  router(): Router;
  /** The running plugins. */
  plugins(): readonly (Plugin | PluginInstance)[];
  /** Handles a message again (an approval decided while its handler waited). */
  rehandle(message: Message, flags: string[]): Promise<unknown>;
}

/** The bot's cards, listening for reaction and vote clicks on the bus. */
export function botCards(d: SetFollowerDeps): Cards {
  const cards = createCards({
    api: d.api,
    store: d.storage.namespace("topicbot:cards"),
    router: d.router,
    directory: d.directory,
    log: d.log.child({ component: "cards" }),
    // Under `respondTo: mentions` the prefix addresses nothing: cards show the mention to type.
    prefix: d.respondTo === "mentions" ? "" : d.prefix,
    now: d.now,
    timeZone: d.timeZone,
    timers: d.timers ?? systemClock,
    rehandle: d.rehandle,
  });
  d.bus.on("reaction", cards.runtime.onReaction);
  d.bus.on("submessage", cards.runtime.onSubmessage);
  return cards;
}

/** The bot's topic moves: follows, open questions, sessions and overlap lanes go with a topic. */
export function botMoves(d: SetFollowerDeps): TopicMoves {
  const sessions = d.storage.namespace("topicbot:sessions");
  return new TopicMoves(d.bus, {
    follows: d.follows,
    dialogs: d.dialogs,
    // The running plugins' session namespaces (a reload may change them).
    sessionStores: () =>
      ["bot", ...d.plugins().map((e) => ("plugin" in e ? e.plugin : e).name)].map((name) =>
        sessions.namespace(name),
      ),
    overlap: d.overlap,
    log: d.log,
  });
}
