// EventQueue: register, long-poll, acknowledge, recover (re-register, back off, watchdog, stop on fatal), delete on stop.
import type { ApiClient } from "../client/client.js";
import { ApiError, CertificateError, isFatal, ResponseShapeError } from "../client/errors.js";
import { backoffDelay, sleep, type BackoffOptions } from "../client/backoff.js";
import type { AnyEvent, RegisterParams, Registration } from "../api/events.js";
import type { Logger } from "../log/logger.js";
import { silentLogger } from "../log/logger.js";
import { cutPollHint, isCutPoll, MIN_CUT_MS } from "./poll-cut.js";
import { applyRealmEvent, learnEditWindow } from "../client/edit-window.js";
import { isOwnEcho, ownId } from "./own-echo.js";

/** What the queue does after a failed poll: decided in one place, by error class. */
export type Recovery =
  | { action: "fatal" }
  | { action: "reregister" }
  | { action: "wait"; ms: number }
  | { action: "backoff" };

/** A poll that outlived the watchdog and was abandoned. */
export class PollTimeoutError extends Error {
  override readonly name = "PollTimeoutError";
  constructor(ms: number) {
    super(`GET /events: no answer within ${ms} ms (watchdog); abandoning the poll`);
  }
}

export function recoveryFor(error: unknown): Recovery {
  // A certificate refused (rotated to an unknown CA, a client certificate expired) stays refused
  // until the settings change: stop, saying what to set, rather than retry for ever.
  if (isFatal(error) || error instanceof CertificateError) return { action: "fatal" };
  if (error instanceof ApiError) {
    if (error.code === "BAD_EVENT_QUEUE_ID" || /^Bad event queue id:/i.test(error.msg))
      return { action: "reregister" };
    if (error.code === "RATE_LIMIT_HIT" || error.status === 429) {
      return { action: "wait", ms: Math.ceil((error.retryAfter ?? 1) * 1000) };
    }
  }
  return { action: "backoff" };
}

export interface EventQueueOptions {
  client: ApiClient;
  /** Registration parameters; `apply_markdown` defaults to false so commands see raw Markdown. */
  register?: RegisterParams;
  /** Waits between failed polls: capped exponential with jitter. Default base 500 ms, cap 30 s. */
  backoff?: BackoffOptions;
  /**
   * A poll still unanswered after this long is abandoned and sent again. Default: the client's
   * long-poll timeout (from the registration) plus 15 s.
   */
  watchdogMs?: number;
  /**
   * After polls have failed for this long, the queue is presumed collected: register a new one
   * (and catch up) instead of polling the old one. Default 5 minutes.
   */
  reregisterAfterMs?: number;
  logger?: Logger;
  /**
   * A poll open this long before the connection was cut counts as cut in between (a proxy's
   * timeout), not failed: polled again at once, never a reason to drop the queue. Default 10 s.
   */
  minCutMs?: number;
  /** The current time in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /**
   * While the bot streams an answer, a poll that brought only the bot's own echoes (its content
   * edits, its typing notices) is followed by the next one only after this long, or once no
   * stream is open: the edits of a stream then wake the poll a few times, not once each. A
   * message sent meanwhile waits at most this much longer. Default 500 ms (a person's message costs at most that); 0 polls at once.
   */
  ownEchoHoldMs?: number;
  /**
   * The bot's user ID, to tell its own echoes. Default: the registration's `user_id` when it has
   * one, else the sender of the first message event from the client's own email.
   */
  me?: number;
}

/** Receives each batch of non-heartbeat events; the next poll waits until it resolves. `signal` aborts on stop. */
export type EventSink = (events: AnyEvent[], signal: AbortSignal) => Promise<void> | void;

export interface EventSourceHooks {
  /**
   * Before the first poll of each queue (the first one, and each that replaced a lost one): the
   * queue is polled once this resolves, so catch-up runs here. If it throws, it runs again after backoff.
   */
  onRegistered?(
    registration: Registration,
    info: { replaced: boolean; signal: AbortSignal },
  ): Promise<void> | void;
  /** The loop ended because the server refused the bot for good. */
  onFatal?(error: unknown): void;
}

/** Where events come from; the runtime only needs this much, so tests can push events in directly. */
export interface EventSource {
  start(sink: EventSink, hooks?: EventSourceHooks): Promise<Registration>;
  /** Stops polling but keeps the queue (the runtime drains handlers before `stop`). */
  halt?(): Promise<void>;
  /** Stops polling and deletes the queue. */
  stop(): Promise<void>;
}

export const DEFAULT_REREGISTER_AFTER_MS = 5 * 60_000;
export const DEFAULT_OWN_ECHO_HOLD_MS = 500;
const WATCHDOG_GRACE_MS = 15_000;
/** The most events one call of the sink gets (see `#handOver`). */
export const HANDOVER_SLICE = 64;

/**
 * The events of a streamed chunk, checked as the client's check of a whole poll would: each an
 * object with an integer `id` and a string `type` (its own shape is checked later, by type).
 * `before` is how many events of the poll came before, for the error's index.
 */
function checkedEvents(items: unknown[], before: number): AnyEvent[] {
  for (let i = 0; i < items.length; i++) {
    const event = items[i] as { id?: unknown; type?: unknown } | null;
    if (
      typeof event !== "object" ||
      event === null ||
      !Number.isSafeInteger(event.id) ||
      typeof event.type !== "string"
    )
      throw new ResponseShapeError(
        "GET /events",
        `events[${before + i}]: not an event with an integer id and a string type`,
      );
  }
  return items as AnyEvent[];
}

/** Takes the next slice of at most HANDOVER_SLICE events off `pending` (newest first), oldest first. */
function nextSlice(pending: AnyEvent[]): AnyEvent[] {
  const slice: AnyEvent[] = [];
  while (slice.length < HANDOVER_SLICE && pending.length > 0) slice.push(pending.pop()!);
  return slice;
}

/**
 * The watchdog of a queue's polls: aborts the poll in flight with a PollTimeoutError once the
 * server has left it unanswered for `ms`, or at once when the queue halts (`abort`). Paused while
 * the sink waits for room: the body is not read then, and that wait is the bot's, not the
 * server's. One per queue, with one timer for as long as polls follow each other: starting,
 * pausing and arming only move a deadline, and the timer, when it fires before the deadline (it
 * moved on, or the watch is paused), sets itself again for what is left. A timer set and cleared
 * for every poll and every chunk taken was 4 timers and 8 clears per reply at 200 replies/s, each
 * making and dropping Node's list of timers of that duration.
 *
 * The abort controller is the queue's, shared by its polls until one aborts it (see
 * `EventQueue.#pollAbort`); aborting it directly, rather than through `AbortSignal.any` over the
 * queue's signal and a timer's, spares two signals and a listener on a long-lived one per poll.
 */
class PollWatchdog {
  /** The poll being watched: its controller, and how long the server may leave it unanswered. */
  #abort: AbortController | undefined;
  #ms = 0;
  /** When the poll is abandoned (`performance.now()`); Infinity while paused or between polls. */
  #deadline = Infinity;
  #timer: NodeJS.Timeout | undefined;

  /** Starts watching a poll that aborts `abort` when abandoned. */
  begin(ms: number, abort: AbortController): AbortSignal {
    this.#abort = abort;
    this.#ms = ms;
    this.arm();
    return abort.signal;
  }

  /** Starts the full `ms` again. */
  arm(): void {
    this.#deadline = performance.now() + this.#ms;
    this.#timer ??= setTimeout(this.#fire, this.#ms);
  }

  pause(): void {
    this.#deadline = Infinity;
  }

  /** The poll ended: nothing is watched until the next `begin` (the timer, if set, stays for it). */
  end(): void {
    this.#abort = undefined;
    this.#deadline = Infinity;
  }

  /** Ends the poll in flight now (the queue is halting). */
  abort(reason: unknown): void {
    this.#abort?.abort(reason);
  }

  /** No poll follows: the timer goes too. */
  stop(): void {
    this.end();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    // Between polls, or paused: the next `begin` or `arm` sets the timer again.
    if (this.#abort === undefined || this.#deadline === Infinity) return;
    const left = this.#deadline - performance.now();
    if (left > 0) {
      this.#timer = setTimeout(this.#fire, left);
      return;
    }
    this.#abort.abort(new PollTimeoutError(this.#ms));
  };
}

/**
 * The long-poll loop over one server-side queue, replaced whenever it is lost.
 *
 * @example
 * const queue = new EventQueue({ client, register: { event_types: ["message"] } });
 * await queue.start(async (events) => console.log(events));
 * await queue.stop();
 */
export class EventQueue implements EventSource {
  readonly #client: ApiClient;
  readonly #params: RegisterParams;
  readonly #backoff: BackoffOptions;
  readonly #log: Logger;
  readonly #watchdogMs: number | undefined;
  readonly #reregisterAfterMs: number;
  readonly #now: () => number;
  readonly #minCutMs: number;
  #queueId: string | null = null;
  #lastEventId = -1;
  #abort = new AbortController();
  #loop: Promise<void> | undefined;
  /** The watchdog of the polls; `halt` aborts the poll in flight through it. */
  readonly #watchdog = new PollWatchdog();
  /**
   * The polls' abort controller, replaced only once one aborted it (a watchdog timeout, a halt):
   * creating a controller's signal cost more than the rest of a poll's bookkeeping, once per poll,
   * and a poll leaves no listener on it (the transport removes its own when the request ends).
   */
  #pollAbort = new AbortController();
  #hooks: EventSourceHooks = {};
  /** Since when polls have failed (epoch ms), while they do; cut polls do not count. */
  #failingSince: number | undefined;
  #failures = 0;
  #lastError: string | undefined;
  /** Since when the sink has held the events of a poll (epoch ms), while it does. */
  #handingOverSince: number | undefined;
  /** Whether the hint about polls cut in between (a proxy's timeout) was logged already. */
  #cutExplained = false;
  /** Polls cut in between so far (`poll-cut.ts`). */
  cutPolls = 0;
  readonly #ownEchoHoldMs: number;
  #me: number | undefined;
  /** What the current poll brought: the bot's own echoes, and anything else. */
  #echoes = 0;
  #others = 0;
  /** Polls held after bringing only the bot's own echoes. */
  heldPolls = 0;
  /** The latest registration; refreshed on every re-registration. */
  registration: Registration | undefined;
  /** How many queues this loop has registered (1 until one is lost). */
  registrations = 0;

  constructor(options: EventQueueOptions) {
    this.#client = options.client;
    this.#params = { apply_markdown: false, ...options.register };
    this.#backoff = { baseMs: 500, capMs: 30_000, ...options.backoff };
    this.#log = options.logger ?? silentLogger();
    this.#watchdogMs = options.watchdogMs;
    this.#reregisterAfterMs = options.reregisterAfterMs ?? DEFAULT_REREGISTER_AFTER_MS;
    this.#now = options.now ?? Date.now;
    this.#minCutMs = options.minCutMs ?? MIN_CUT_MS;
    this.#ownEchoHoldMs = options.ownEchoHoldMs ?? DEFAULT_OWN_ECHO_HOLD_MS;
    this.#me = options.me;
  }

  get queueId(): string | null {
    return this.#queueId;
  }

  get lastEventId(): number {
    return this.#lastEventId;
  }

  /**
   * How polling goes, for `/healthz`: since when polls have failed and how often (cut polls do
   * not count), the last failure, and since when the sink has held a poll's events.
   */
  get pollState(): {
    failingSince: number | undefined;
    failures: number;
    lastError: string | undefined;
    handingOverSince: number | undefined;
  } {
    return {
      failingSince: this.#failingSince,
      failures: this.#failures,
      lastError: this.#lastError,
      handingOverSince: this.#handingOverSince,
    };
  }

  /** The registration parameters (catch-up uses the same narrow). */
  get params(): Readonly<RegisterParams> {
    return this.#params;
  }

  async #register(): Promise<Registration> {
    const registration = await this.#client.events.register(this.#params, {
      signal: this.#abort.signal,
    });
    this.#queueId = registration.queue_id;
    this.#lastEventId = registration.last_event_id;
    this.registration = registration;
    this.registrations++;
    learnEditWindow(this.#client, registration);
    this.#me ??= registration.user_id;
    this.#log.info(
      { queueId: registration.queue_id, featureLevel: registration.zulip_feature_level },
      "event queue registered",
    );
    return registration;
  }

  /** Registers (failing fast on bad credentials) and starts polling in the background. */
  async start(sink: EventSink, hooks: EventSourceHooks = {}): Promise<Registration> {
    this.#hooks = hooks;
    const registration = await this.#register();
    // The loop's end (a halt, a stop, a fatal refusal) is the end of the polls: the watchdog's timer goes.
    this.#loop = this.#run(sink).finally(() => this.#watchdog.stop());
    return registration;
  }

  /**
   * One poll, abandoned by the watchdog if the server leaves it unanswered for longer than the
   * long-poll timeout. Its events are read as they arrive and handed to the sink chunk by chunk
   * (`#takeStreamed`); the socket is read no further while the sink waits (TCP backpressure), so a
   * poll of thousands of events is never held whole. The watchdog does not count that wait: it is
   * the bot that is busy, not the server. Returns what a client that does not stream (a test
   * double) returned instead.
   */
  async #poll(sink: EventSink, signal: AbortSignal): Promise<AnyEvent[]> {
    const ms = this.#watchdogMs ?? this.#client.longPollTimeoutMs + WATCHDOG_GRACE_MS;
    if (this.#pollAbort.signal.aborted) this.#pollAbort = new AbortController();
    const watchdog = this.#watchdog;
    const pollSignal = watchdog.begin(ms, this.#pollAbort);
    if (this.#abort.signal.aborted) watchdog.abort(this.#abort.signal.reason);
    this.#echoes = 0;
    this.#others = 0;
    let taken = 0;
    try {
      const { events } = await this.#client.events.get(
        { queue_id: this.#queueId!, last_event_id: this.#lastEventId },
        {
          signal: pollSignal,
          retry: false,
          stream: {
            field: "events",
            take: (items) => {
              const fresh = this.#fresh(checkedEvents(items, taken));
              taken += items.length;
              if (fresh.length === 0) return;
              watchdog.pause();
              const handing = this.#handOver(fresh, sink, signal);
              if (handing === undefined) return watchdog.arm();
              return handing.then(() => watchdog.arm());
            },
          },
        },
      );
      return events;
    } finally {
      watchdog.end();
    }
  }

  async #run(sink: EventSink): Promise<void> {
    const signal = this.#abort.signal;
    let needsCatchUp = true;
    while (!signal.aborted) {
      let pollStarted: number | undefined;
      try {
        if (this.#queueId === null) {
          await this.#register();
          needsCatchUp = true;
        }
        if (needsCatchUp) {
          await this.#hooks.onRegistered?.(this.registration!, {
            replaced: this.registrations > 1,
            signal,
          });
          needsCatchUp = false;
        }
        pollStarted = this.#now();
        const rest = this.#fresh(await this.#poll(sink, signal));
        this.#failures = 0;
        this.#failingSince = undefined;
        this.#lastError = undefined;
        // Both are undefined when there is nothing to wait for (the sink took the events at
        // once, no hold applies): the common case, which then costs no promise.
        const handing = this.#handOver(rest, sink, signal);
        if (handing) await handing;
        const holding = this.#holdAfterEchoes(signal);
        if (holding) await holding;
      } catch (error) {
        if (signal.aborted) break;
        const recovery = recoveryFor(error);
        if (recovery.action === "fatal") {
          this.#log.error(
            { err: error },
            error instanceof CertificateError
              ? `event queue stopped: ${error.message}`
              : "event queue stopped: the server refused the bot",
          );
          this.#hooks.onFatal?.(error);
          return;
        }
        if (recovery.action === "reregister") {
          this.#log.warn({ queueId: this.#queueId }, "event queue lost; registering a new one");
          this.#queueId = null;
          continue;
        }
        // A poll cut in between (a proxy's timeout) is no failure of the server, which still
        // holds the queue: poll it again at once, and say why once.
        const elapsed = pollStarted === undefined ? 0 : this.#now() - pollStarted;
        if (pollStarted !== undefined && isCutPoll(error, elapsed, this.#minCutMs)) {
          this.cutPolls++;
          if (!this.#cutExplained) {
            this.#cutExplained = true;
            this.#log.info(
              { queueId: this.#queueId, afterMs: elapsed },
              cutPollHint(elapsed, error),
            );
          } else
            this.#log.debug(
              { afterMs: elapsed, reason: (error as Error).message },
              "long poll cut in between; polling again",
            );
          continue;
        }
        this.#lastError = error instanceof Error ? error.message : String(error);
        this.#failingSince ??= this.#now();
        if (
          this.#queueId !== null &&
          this.#failures > 0 &&
          this.#now() - this.#failingSince >= this.#reregisterAfterMs
        ) {
          this.#log.warn(
            { queueId: this.#queueId, failingForMs: this.#now() - this.#failingSince },
            "polling has failed for long; registering a new queue and catching up",
          );
          this.#forget(this.#queueId);
          this.#queueId = null;
        }
        const ms =
          recovery.action === "wait" ? recovery.ms : backoffDelay(this.#failures, this.#backoff);
        this.#failures++;
        this.#log.warn(
          { err: error, retryInMs: ms },
          error instanceof PollTimeoutError
            ? "poll abandoned; polling again"
            : "polling failed; retrying",
        );
        await sleep(ms, signal).catch(() => undefined);
      }
    }
  }

  /**
   * The events of a poll not seen before, without heartbeats, newest first (so that
   * `#handOver` can pop them in order); acknowledges them by moving `lastEventId`. The poll's own
   * array is not kept: once this returns, only the returned list holds the events.
   */
  #fresh(events: AnyEvent[]): AnyEvent[] {
    const fresh: AnyEvent[] = [];
    for (const event of events) {
      if (event.id <= this.#lastEventId) continue;
      this.#lastEventId = event.id;
      if (event.type === "heartbeat") continue;
      fresh.push(event);
      if (event.type === "realm") applyRealmEvent(this.#client, event as { op?: unknown });
      if (event.type === "message" && this.#me === undefined) this.#me = ownId(event, this.#client);
      if (isOwnEcho(event, this.#me)) this.#echoes++;
      else this.#others++;
    }
    return fresh.reverse();
  }

  /**
   * After a poll that brought only the bot's own echoes while a stream is open: waits
   * `ownEchoHoldMs`, or until no stream is open, before the next poll (see the option).
   */
  #holdAfterEchoes(signal: AbortSignal): Promise<unknown> | undefined {
    const pacer = this.#client.pacer;
    if (this.#ownEchoHoldMs <= 0 || this.#echoes === 0 || this.#others > 0) return undefined;
    if (!pacer || pacer.openStreams === 0) return undefined;
    this.heldPolls++;
    return Promise.race([
      sleep(this.#ownEchoHoldMs, signal).catch(() => undefined),
      pacer.streamsIdle(),
    ]);
  }

  /**
   * Hands events (newest first) to the sink in slices of at most `HANDOVER_SLICE`, in order,
   * removing each slice from `pending` before handing it over, so that a taken slice is not kept
   * reachable by the rest. A streamed poll passes one chunk of the body at a time (a few hundred
   * events at most); a client that does not stream passes a whole poll.
   */
  #handOver(pending: AnyEvent[], sink: EventSink, signal: AbortSignal): Promise<void> | undefined {
    if (pending.length === 0) return undefined;
    this.#handingOverSince ??= this.#now();
    // While the sink takes each slice at once (it returns nothing), all of it happens here, with
    // no promise; from the first slice it makes wait for, the rest goes on in `#handOverAfter`.
    try {
      while (pending.length > 0 && !signal.aborted) {
        const waiting = sink(nextSlice(pending), signal);
        if (waiting) return this.#handOverAfter(waiting, pending, sink, signal);
      }
    } catch (error) {
      this.#handingOverSince = undefined;
      throw error;
    }
    this.#handingOverSince = undefined;
    return undefined;
  }

  /** The rest of `#handOver` once the sink made it wait (`waiting`). */
  async #handOverAfter(
    waiting: Promise<void>,
    pending: AnyEvent[],
    sink: EventSink,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await waiting;
      while (pending.length > 0 && !signal.aborted) await sink(nextSlice(pending), signal);
    } finally {
      this.#handingOverSince = undefined;
    }
  }

  /** Deletes a queue we no longer poll, without waiting; the server collects it anyway. */
  #forget(queueId: string): void {
    void this.#client.events
      .deleteQueue({ queue_id: queueId }, { timeoutMs: 5_000, retry: false })
      .catch(() => undefined);
  }

  /** Aborts the poll in flight and waits for the loop to end; the queue stays registered. */
  async halt(): Promise<void> {
    const reason = new Error("event queue stopped");
    this.#abort.abort(reason);
    this.#watchdog.abort(reason);
    await this.#loop;
  }

  /** Stops polling and deletes the queue (a queue already gone counts as deleted). */
  async stop(): Promise<void> {
    await this.halt();
    const queueId = this.#queueId;
    this.#queueId = null;
    if (queueId === null) return;
    try {
      await this.#client.events.deleteQueue(
        { queue_id: queueId },
        { timeoutMs: 5_000, retry: false },
      );
      this.#log.info({ queueId }, "event queue deleted");
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "BAD_EVENT_QUEUE_ID")) {
        this.#log.warn({ err: error }, "could not delete the event queue");
      }
    }
  }
}
