// The intake: events onto the typed bus, messages claimed once and dispatched per conversation, catch-up, drain.
import type { EventEmitter } from "eventemitter3";
import type { ApiClient } from "../client/client.js";
import type { AnyEvent } from "../api/events.js";
import { validateEvent } from "./validate.js";
import type { Narrow } from "../api/common.js";
import type { Message } from "../api/messages.js";
import type { Logger } from "../log/logger.js";
import { catchUp, newestMessageId, type CatchUpWindow } from "./catch-up.js";
import { LaneKeys } from "../model/conversation.js";
import type { DeliveryLedger } from "./ledger.js";
import type { Dispatcher, LaneRelease, SelfReleasingTask } from "../dispatch/dispatcher.js";
import type { HandedOn } from "../dispatch/overlap-lanes.js";
import type { ClaimedTurn } from "../dispatch/turn.js";

export interface IntakeOptions {
  api: ApiClient;
  log: Logger;
  bus: EventEmitter;
  dispatcher: Dispatcher;
  ledger: DeliveryLedger;
  /**
   * Handles one message; resolves when its conversation may move on to the next one: with nothing
   * when the message is done, or with a HandedOn when a later call finishes it. `arrivedAt`
   * (`performance.now()` when its batch reached the intake) times the reply; undefined for
   * messages caught up, which are not timed.
   */
  handle(
    message: Message,
    flags: string[],
    arrivedAt: number | undefined,
  ): Promise<HandedOn | void>;
  /**
   * The fast path of `handle`, which the bot gives: starts handling a claimed message and calls
   * `claimed.release()` (or `fail()`) when its conversation may move on, instead of resolving a
   * promise, so that no promise per message stands between the handler, the ledger and the lane.
   */
  start?(claimed: ClaimedTurn): void;
  /** GET /messages narrows that see what the queue sees. */
  narrows: Narrow[];
  /**
   * The bot's user ID once known; catch-up leaves the bot's own messages out, and the intake
   * finishes them itself (`#ownMessage`).
   */
  me(): number | undefined;
  /** A message of the bot's own was finished without the pipeline (counted handled, as it stops there). */
  ownMessageHandled?(): void;
  /** How far catch-up reaches; false turns catch-up off. */
  catchUpWindow: CatchUpWindow | false;
  now(): number;
}

/**
 * Waits for room in the dispatcher, or less if the sink's signal aborts first. The abort listener
 * is added once per batch (on its first wait) and removed when the batch ends, not once per wait:
 * a full dispatcher makes the sink wait on nearly every message.
 */
class RoomWait {
  readonly #signal: AbortSignal;
  #aborted: Promise<void> | undefined;
  #onAbort: (() => void) | undefined;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
  }

  until(ready: Promise<void>): Promise<void> {
    if (this.#signal.aborted) return Promise.resolve();
    this.#aborted ??= new Promise<void>((resolve) => {
      this.#onAbort = () => resolve();
      this.#signal.addEventListener("abort", this.#onAbort, { once: true });
    });
    return Promise.race([ready, this.#aborted]);
  }

  /** Leaves no listener behind. */
  end(): void {
    if (this.#onAbort) this.#signal.removeEventListener("abort", this.#onAbort);
  }
}

/**
 * Longest the next poll is held while the dispatcher is saturated (`#holdWhileSaturated`): events
 * other than messages (reactions, ...) and the server's event queue, which expires when not polled,
 * do not wait on long handlers for longer than this.
 */
const SATURATED_HOLD_MAX_MS = 1_000;

/**
 * Turns batches of events into bus events and dispatched messages. Each message is claimed in the
 * delivery ledger first (so a message seen again is dropped), and the sink waits for room in the
 * dispatcher before returning, which holds the next poll back; so does a saturated dispatcher
 * (conversations waiting for a slot), for up to a second (`#holdWhileSaturated`).
 */
export class Intake {
  readonly #o: IntakeOptions;
  readonly #warned = new Set<string>();
  /**
   * The newest message ID `baseline()` just read from the server and made the watermark, until
   * the first catch-up: that catch-up skips `#warnIfAheadOfServer`, whose GET /messages would
   * read the same ID again (one request less between `ready` and the first answer, issue 17).
   */
  #baselineJustRead: number | undefined;
  /** Each message's lane key, the same string object per topic (see `LaneKeys`). */
  readonly #laneKeys = new LaneKeys();

  constructor(options: IntakeOptions) {
    this.#o = options;
  }

  /**
   * The EventSink: every event onto the bus, every new message to the dispatcher. A plain function
   * over the batch, not an async one: while the dispatcher has room the whole batch is taken in one
   * synchronous pass, and only when it is full does the rest of the batch go on after a wait.
   */
  readonly sink = (events: AnyEvent[], signal: AbortSignal): Promise<void> | undefined => {
    // One clock reading per batch: its events arrived together.
    const arrivedAt = performance.now();
    const waited = this.#take(events, 0, signal, arrivedAt);
    if (waited !== undefined) return this.#finishBatch(events, waited, signal, arrivedAt);
    return this.#o.dispatcher.saturated ? this.#holdWhileSaturated(signal) : undefined;
  };

  /**
   * Holds the next poll while lanes with work wait for a concurrency slot (at most
   * SATURATED_HOLD_MAX_MS): a message the poll brought now could not start before them anyway, and
   * one poll later carries all that came meanwhile. Polling again at once under load made a poll
   * for every few replies, each a request, an answer and a parse (issue 17: 0.12 polls per reply
   * at saturation, a tenth of that held). Not a wait for time: below saturation, which is every
   * bot not short of concurrency, the next poll goes at once as before, so latency is unchanged.
   */
  async #holdWhileSaturated(signal: AbortSignal): Promise<void> {
    const room = new RoomWait(signal);
    let timer: NodeJS.Timeout | undefined;
    try {
      await room.until(
        Promise.race([
          this.#o.dispatcher.whenUnsaturated(),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, SATURATED_HOLD_MAX_MS);
          }),
        ]),
      );
    } finally {
      clearTimeout(timer);
      room.end();
    }
  }

  /**
   * Takes events from `from` on until the batch ends, the signal aborts, or the dispatcher is full
   * after a message (then it returns the index of the next event, which waits for room).
   */
  #take(
    events: AnyEvent[],
    from: number,
    signal: AbortSignal,
    arrivedAt: number,
  ): number | undefined {
    for (let i = from; i < events.length; i++) {
      const event = this.#parse(events[i]!);
      if (event) {
        if (event.type === "message") {
          const { message, flags } = event as unknown as { message: Message; flags: string[] };
          // Backpressure: no more events are taken (and no poll is made) until there is room.
          if (this.#deliver(message, flags, event, arrivedAt) && !this.#o.dispatcher.hasRoom)
            return i + 1;
        } else {
          this.#o.bus.emit(event.type, event);
        }
      }
      if (signal.aborted) return undefined;
    }
    return undefined;
  }

  /** The rest of a batch that found the dispatcher full: waits for room before each next take. */
  async #finishBatch(
    events: AnyEvent[],
    next: number,
    signal: AbortSignal,
    arrivedAt: number,
  ): Promise<void> {
    const room = new RoomWait(signal);
    try {
      let at: number | undefined = next;
      while (at !== undefined) {
        await room.until(this.#o.dispatcher.whenReady());
        if (signal.aborted) return;
        at = this.#take(events, at, signal, arrivedAt);
      }
    } finally {
      room.end();
    }
  }

  /** Validates a known event type; a malformed one is logged (once per type) and skipped. */
  #parse(raw: AnyEvent): AnyEvent | undefined {
    const { event, issue } = validateEvent(raw);
    if (event) return event;
    if (!this.#warned.has(raw.type)) {
      this.#warned.add(raw.type);
      this.#o.log.warn(
        { eventId: raw.id, eventType: raw.type, issue },
        `skipping a malformed ${raw.type} event`,
      );
    }
    return undefined;
  }

  /**
   * Claims a message and pushes it to its conversation's lane; false when it was handled already.
   * Synchronous: it runs for every message, and the waiting for room is the caller's.
   */
  #deliver(
    message: Message,
    flags: string[],
    event: AnyEvent,
    arrivedAt: number | undefined,
  ): boolean {
    const { ledger, dispatcher } = this.#o;
    if (!ledger.claim(message.id)) {
      this.#o.log.debug({ messageId: message.id }, "skipping a message handled already");
      return false;
    }
    this.#o.bus.emit("message", event);
    if (message.sender_id === this.#o.me()) return this.#ownMessage(message);
    dispatcher.push(
      this.#laneKeys.of(message),
      new ClaimedMessage(message, flags, arrivedAt, this.#o),
    );
    return true;
  }

  /**
   * The fast path for the bot's own messages, which come back on the queue (every reply does):
   * the pipeline's first stage (`admit`) stops them, so a lane, a turn and a context for each
   * were work for nothing, and under load they are half the messages. Finished in the ledger at
   * once (the watermark passes it as it would after the pipeline) and counted handled.
   */
  #ownMessage(message: Message): true {
    void this.#o.ledger.finish(message.id);
    this.#o.ownMessageHandled?.();
    return true;
  }

  /**
   * Fetches what was sent after the last handled message (the queue is already registered, so
   * nothing falls between) and dispatches it; the new queue's copies are dropped by the ledger.
   */
  async catchUp(signal: AbortSignal): Promise<void> {
    const after = this.#o.ledger.lastHandledId;
    if (after === undefined) return;
    const baselineJustRead = this.#baselineJustRead === after;
    this.#baselineJustRead = undefined;
    if (!baselineJustRead) await this.#warnIfAheadOfServer(after);
    if (this.#o.catchUpWindow === false) return;
    const result = await catchUp(this.#o.api, {
      after,
      narrows: this.#o.narrows,
      skipSenderId: this.#o.me(),
      window: this.#o.catchUpWindow,
      now: this.#o.now(),
      signal,
    });
    if (result.truncated || result.tooOld > 0) {
      this.#o.log.warn(
        { after, reachedId: result.reachedId, truncated: result.truncated, tooOld: result.tooOld },
        result.truncated
          ? `catch-up window exceeded: messages after ${result.reachedId} sent before the new queue are not handled (catchUpWindow.maxMessages)`
          : `catch-up window exceeded: ${result.tooOld} messages older than catchUpWindow.maxAgeMs are not handled`,
      );
    }
    const fresh = result.messages.filter(({ message }) => !this.#o.ledger.has(message.id));
    if (fresh.length > 0)
      this.#o.log.info({ after, messages: fresh.length }, "catching up on missed messages");
    const room = new RoomWait(signal);
    try {
      for (const { message, flags } of fresh) {
        const event: AnyEvent = { id: -1, type: "message", message, flags };
        if (this.#deliver(message, flags, event, undefined) && !this.#o.dispatcher.hasRoom)
          await room.until(this.#o.dispatcher.whenReady());
        if (signal.aborted) return;
      }
    } finally {
      room.end();
    }
  }

  /**
   * Warns when the newest message the server shows is older than the watermark. The saved delivery
   * state then belongs to another server, or to one that was reset (a restarted `bot sandbox`
   * numbers its messages from 1 again), and every new message up to the watermark would be
   * skipped as handled already, with nothing but a debug line to say so.
   */
  async #warnIfAheadOfServer(after: number): Promise<void> {
    let newest: number;
    try {
      newest = await newestMessageId(this.#o.api, this.#o.narrows);
    } catch {
      return; // Unknown: catch-up reports what is wrong with the server.
    }
    if (newest >= after) return;
    this.#o.log.warn(
      { lastHandledId: after, newestOnServer: newest },
      `the saved delivery state says message ${after} was handled, but the newest message on the server is ${newest}: ` +
        `the state was kept for another server, or this one was reset (or its newest messages deleted). ` +
        `Messages up to ${after} will be skipped as handled already; to start afresh, stop the bot and delete the delivery journal ` +
        `(storage: file keeps it beside the store file, as <path>.delivery.jsonl)`,
    );
  }

  /**
   * Sets the catch-up starting point on a first start: the newest message visible now, written
   * durably before the queue is registered (so before any event is taken). A failed read is a
   * warning (no catch-up until a message is handled); a failed write rejects: a bot that cannot
   * record where it started would start afresh after every kill, and lose what came meanwhile.
   */
  async baseline(): Promise<void> {
    if (this.#o.ledger.lastHandledId !== undefined) return;
    let newest: number;
    try {
      newest = await newestMessageId(this.#o.api, this.#o.narrows);
    } catch (error) {
      this.#o.log.warn(
        { err: error },
        "could not read the newest message; no catch-up until one is handled",
      );
      return;
    }
    await this.#o.ledger.baseline(newest);
    this.#baselineJustRead = newest;
  }
}

/**
 * One claimed message on its way through its conversation's lane: the dispatcher's task, and what
 * the handler hands back when the conversation may move on. One object per message carries the
 * message, its arrival, the claim and the lane, in place of a closure and three chained promises.
 * On release it finishes the message in the ledger, unless the pipeline handed it on ("lane
 * released" and "delivered" are then two moments). The lane does not wait for the ledger's save:
 * the save is batched per turn of the event loop and only ever records finished messages, and stop
 * waits for it (`Delivery.close`).
 */
export class ClaimedMessage implements SelfReleasingTask, ClaimedTurn {
  readonly message: Message;
  readonly flags: string[];
  /** `performance.now()` when its batch reached the intake; undefined when caught up. */
  readonly arrivedAt: number | undefined;
  readonly #o: IntakeOptions;
  #lane: LaneRelease | undefined;
  #released = false;

  constructor(
    message: Message,
    flags: string[],
    arrivedAt: number | undefined,
    options: IntakeOptions,
  ) {
    this.message = message;
    this.flags = flags;
    this.arrivedAt = arrivedAt;
    this.#o = options;
  }

  /** The lane's turn came: the bot's fast path (`start`), else `handle` and its promise. */
  start(lane: LaneRelease): void {
    this.#lane = lane;
    const o = this.#o;
    try {
      if (o.start) return o.start(this);
      o.handle(this.message, this.flags, this.arrivedAt).then(
        (handedOn) => this.release(handedOn ?? undefined),
        (error: unknown) => this.fail(error),
      );
    } catch (error) {
      this.fail(error);
    }
  }

  /** The conversation may move on; with `handedOn` when a later call finishes the message. Once. */
  release(handedOn: HandedOn | undefined): void {
    if (this.#released) return;
    this.#released = true;
    const { ledger } = this.#o;
    if (handedOn === undefined) {
      void ledger.finish(this.message.id);
      return this.#lane!.done(undefined);
    }
    const id = this.message.id;
    // The ledger finishes a handed-on message when the call that took it ended, not before.
    const delivered = handedOn.delivered.then((handled) =>
      handled
        ? ledger.finish(id)
        : this.#o.log.debug(
            { messageId: id },
            "message held at stop; it is caught up on the next start",
          ),
    );
    this.#lane!.done({ delivered });
  }

  /** Handling threw before the conversation could move on: finished, and the lane told. Once. */
  fail(error: unknown): void {
    if (this.#released) return;
    this.#released = true;
    void this.#o.ledger.finish(this.message.id);
    this.#lane!.failed(error);
  }
}
