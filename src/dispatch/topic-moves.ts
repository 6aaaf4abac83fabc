// Topics that move: when the server renames or moves a topic, the bot's follows, sessions, open questions and overlap lanes go with it.
import type { EventEmitter } from "eventemitter3";
import type { UpdateMessageEvent } from "../api/events.js";
import type { MessageContext } from "../context/context.js";
import type { Follows } from "../context/follows.js";
import { moveSessions, type Dialogs } from "../context/session.js";
import type { Logger } from "../log/logger.js";
import { conversationKey, type Conversation } from "../model/conversation.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import type { OverlapRoom } from "./overlap-lanes.js";

/** Where a channel topic is. */
export interface TopicPlace {
  streamId: number;
  topic: string;
}

/** A move the server made, read from its `update_message` event. */
export interface TopicMove {
  from: TopicPlace;
  to: TopicPlace;
  /** `change_one`: one message; `change_later`: it and those after it; `change_all`: the topic. */
  mode: "change_one" | "change_later" | "change_all";
  /** The messages that moved. */
  messageIds: number[];
  /** The channel's name before the move (`stream_name`), kept when the channel stays. */
  channel: string | undefined;
}

/**
 * The move an `update_message` event reports, or undefined for a content edit. Every move carries
 * `propagate_mode`, `stream_id` and `orig_subject`; `new_stream_id` only when the channel changed,
 * `subject` only when the topic did.
 *
 * @example
 * topicMoveOf({ ...event, stream_id: 3, orig_subject: "draft", subject: "final", propagate_mode: "change_all" });
 * // { from: { streamId: 3, topic: "draft" }, to: { streamId: 3, topic: "final" }, mode: "change_all", ... }
 */
export function topicMoveOf(event: UpdateMessageEvent): TopicMove | undefined {
  const { propagate_mode: mode, stream_id: streamId, orig_subject: topic } = event;
  if (mode === undefined || streamId === undefined || topic === undefined) return undefined;
  const to = { streamId: event.new_stream_id ?? streamId, topic: event.subject ?? topic };
  return {
    from: { streamId, topic },
    to,
    mode,
    messageIds: event.message_ids,
    channel: to.streamId === streamId ? event.stream_name : undefined,
  };
}

/**
 * Whether the conversation goes with the move: the whole topic moved (`change_all`), or the
 * message and every later one, where the conversation goes on (`change_later`). One message moved
 * alone (`change_one`) leaves the conversation, and everything the bot keeps of it, where it was.
 */
export const movesConversation = (move: TopicMove): boolean => move.mode !== "change_one";

export interface TopicMovesOptions {
  follows: Follows;
  dialogs: Dialogs<MessageContext>;
  /** Each plugin's session store (the `bot` one included). */
  sessionStores(): Iterable<KeyValueStore>;
  overlap: OverlapRoom;
  log: Logger;
}

/**
 * Applies every topic move on `bus` (`update_message` events) to the bot's conversation state:
 * follows, sessions (the conversation's and each user's), open questions (`ctx.ask`, whose asker
 * replies in the new place afterwards), overlap lanes, and (through `onMove`) the contexts of
 * handlers running there, whose replies go to the new place. What is kept in memory moves at once;
 * what is stored moves after, and a message of the new conversation waits for it (`pending`).
 * Every node of a cluster sees each move and applies it: each stored entry is written under its
 * new key before it is deleted under the old one, so a node that comes second finds it moved.
 *
 * @example
 * const moves = new TopicMoves(bus, { follows, dialogs, sessionStores, overlap, log });
 * if (moves.any) await moves.pending("channel:3:final"); // undefined: no move into it under way
 */
export class TopicMoves {
  readonly #o: TopicMovesOptions;
  /** Moves under way, by the conversation they go to. */
  readonly #pending = new Map<string, Promise<void>>();
  /** Told of each move applied (the handler relocates the contexts of handlers running there). */
  readonly #listeners: ((from: string, to: Conversation) => void)[] = [];

  constructor(bus: EventEmitter, options: TopicMovesOptions) {
    this.#o = options;
    bus.on("update_message", (event: UpdateMessageEvent) => {
      const move = topicMoveOf(event);
      if (move && movesConversation(move)) this.apply(move);
    });
  }

  /** Whether any move is under way (false nearly always: then no message waits for one). */
  get any(): boolean {
    return this.#pending.size > 0;
  }

  /** Calls `listener` with the old conversation key and the new conversation of every move applied. */
  onMove(listener: (from: string, to: Conversation) => void): void {
    this.#listeners.push(listener);
  }

  /** Settles when the moves into `conversation` (a conversation key) under way have finished. */
  pending(conversation: string): Promise<void> | undefined {
    return this.#pending.get(conversation);
  }

  /** Moves the conversation state of `move.from` to `move.to`. */
  apply(move: TopicMove): void {
    const to: Conversation = {
      type: "channel",
      streamId: move.to.streamId,
      channel: move.channel ?? "",
      topic: move.to.topic,
    };
    const fromKey = conversationKey({ type: "channel", channel: "", ...move.from });
    const toKey = conversationKey(to);
    if (fromKey === toKey) return; // only the topic's case changed: the same conversation
    const { follows, dialogs, overlap, log } = this.#o;
    overlap.move(fromKey, toKey, to);
    for (const listener of this.#listeners) listener(fromKey, to);
    // Each starts with what it keeps in memory (the cached follows, the waiting questions).
    const stored = [
      follows.move(fromKey, toKey),
      dialogs.move(`${fromKey}|`, `${toKey}|`, to),
      ...[...this.#o.sessionStores()].map((store) => moveSessions(store, fromKey, toKey)),
    ];
    const before = this.#pending.get(toKey);
    const done: Promise<void> = Promise.allSettled([before, ...stored]).then((results) => {
      for (const result of results)
        if (result.status === "rejected")
          log.warn(
            { err: result.reason, from: fromKey, to: toKey },
            "a topic moved, and part of what the bot kept of it could not be moved in storage",
          );
      if (this.#pending.get(toKey) === done) this.#pending.delete(toKey);
    });
    this.#pending.set(toKey, done);
  }
}
