// The leader role: while it holds the lease, it polls the server's event queue and publishes each event, fenced.
import type { ApiClient } from "../client/client.js";
import { sleep } from "../client/backoff.js";
import type { AnyEvent, RegisterParams } from "../api/events.js";
import type { Message } from "../api/messages.js";
import { EventQueue } from "../inbound/event-queue.js";
import type { Logger } from "../log/logger.js";
import {
  catchUp,
  catchUpNarrows,
  newestMessageId,
  type CatchUpWindow,
} from "../inbound/catch-up.js";
import { conversationKey, conversationOf } from "../model/conversation.js";
import type { ClusterKeys } from "./keys.js";
import { partitionOf } from "./partition.js";
import { isFenced, type ScriptedRedis } from "./scripts.js";

export interface LeaderOptions {
  redis: ScriptedRedis;
  keys: ClusterKeys;
  api: ApiClient;
  register: RegisterParams;
  partitions: number;
  log: Logger;
  me: () => number;
  catchUpWindow?: CatchUpWindow | false;
  now: () => number;
  /** Called when a publish was refused: this node is no longer the leader. */
  onDeposed(): void;
  /** Resolves once what was just written reached a replica (Sentinel mode; a no-op otherwise). */
  durable?(): Promise<void>;
}

/** Broadcast entries kept for nodes that read late (non-message events are not replayed further back). */
const BROADCAST_MAXLEN = 10_000;

/**
 * One term of leadership: registers a queue, catches up from the shared watermark, and publishes
 * every event under the fencing token `holder` until `end()`.
 */
export class LeaderTerm {
  readonly #o: LeaderOptions;
  readonly #holder: string;
  readonly #queue: EventQueue;
  readonly #started: Promise<unknown>;
  #ended = false;

  constructor(options: LeaderOptions, holder: string) {
    this.#o = options;
    this.#holder = holder;
    this.#queue = new EventQueue({
      client: options.api,
      logger: options.log.child({ component: "events" }),
      register: options.register,
      now: options.now,
    });
    this.#started = this.#queue
      .start(this.#sink, { onRegistered: (_r, { signal }) => this.#catchUp(signal) })
      .catch((error: unknown) => {
        options.log.error(
          { err: error },
          "leader: could not register an event queue; stepping down",
        );
        options.onDeposed();
      });
  }

  /** Stops polling and deletes the queue (the next leader registers its own and catches up). */
  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    await this.#started;
    await this.#queue.stop().catch(() => undefined);
  }

  readonly #sink = async (events: AnyEvent[], signal: AbortSignal): Promise<void> => {
    for (const event of events) {
      if (event.type === "message") {
        const { message } = event as unknown as { message: Message };
        await this.#publish(event, message.id, signal);
      } else {
        await this.#publish(event, 0, signal);
      }
    }
  };

  /**
   * Publishes one event; retried while Redis is unreachable (the poll waits, so nothing is
   * acknowledged to the server unpublished), given up when fenced (the next leader catches up).
   */
  async #publish(event: AnyEvent, messageId: number, signal: AbortSignal): Promise<void> {
    const { redis, keys } = this.#o;
    const stream =
      messageId > 0
        ? keys.partition(
            partitionOf(
              conversationKey(conversationOf((event as unknown as { message: Message }).message)),
              this.#o.partitions,
            ),
          )
        : keys.broadcast;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        await redis.publish(
          keys.leader,
          stream,
          keys.published,
          keys.watermark,
          this.#holder,
          messageId,
          JSON.stringify(event),
          messageId > 0 ? 0 : BROADCAST_MAXLEN,
        );
        // Before the poll moves on: an entry lost in a failover would otherwise be lost for good.
        await this.#o.durable?.();
        return;
      } catch (error) {
        if (isFenced(error)) {
          this.#o.log.warn(
            { messageId },
            "leader: lost the lease; stepping down without publishing",
          );
          this.#o.onDeposed();
          throw error;
        }
        if (attempt % 10 === 0)
          this.#o.log.warn({ err: error }, "leader: cannot publish to Redis; retrying");
        await sleep(Math.min(100 * 2 ** attempt, 1_000), signal).catch(() => undefined);
      }
    }
  }

  /** Publishes what was sent since the shared watermark (a first leader sets it to the newest message). */
  async #catchUp(signal: AbortSignal): Promise<void> {
    const { redis, keys, api } = this.#o;
    const narrows = catchUpNarrows(this.#o.register);
    let after = Number((await redis.get(keys.watermark)) ?? NaN);
    if (Number.isNaN(after)) {
      const newest = await newestMessageId(api, narrows);
      after = await redis.baseline(keys.leader, keys.watermark, this.#holder, newest);
    }
    if (this.#o.catchUpWindow === false) return;
    const result = await catchUp(api, {
      after,
      narrows,
      skipSenderId: this.#o.me(),
      window: this.#o.catchUpWindow ?? {},
      now: this.#o.now(),
      signal,
    });
    if (result.truncated || result.tooOld > 0)
      this.#o.log.warn(
        { after, reachedId: result.reachedId, tooOld: result.tooOld },
        "leader: catch-up window exceeded; older messages are not handled",
      );
    if (result.messages.length > 0)
      this.#o.log.info(
        { after, messages: result.messages.length },
        "leader: publishing missed messages",
      );
    for (const { message, flags } of result.messages) {
      await this.#publish(
        { id: -1, type: "message", message, flags } as unknown as AnyEvent,
        message.id,
        signal,
      );
    }
  }
}
