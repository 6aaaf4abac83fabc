// EventQueue: register, long-poll, acknowledge, recover (re-register, back off, stop on fatal), delete on stop.
import type { ApiClient } from "../client/client.js";
import { ApiError, isFatal } from "../client/errors.js";
import { backoffDelay, sleep, type BackoffOptions } from "../client/backoff.js";
import type { AnyEvent, RegisterParams, Registration } from "../api/events.js";
import type { Logger } from "../log/logger.js";
import { silentLogger } from "../log/logger.js";

/** What the queue does after a failed poll: decided in one place, by error class. */
export type Recovery =
  | { action: "fatal" }
  | { action: "reregister" }
  | { action: "wait"; ms: number }
  | { action: "backoff" };

export function recoveryFor(error: unknown): Recovery {
  if (isFatal(error)) return { action: "fatal" };
  if (error instanceof ApiError) {
    if (error.code === "BAD_EVENT_QUEUE_ID") return { action: "reregister" };
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
  backoff?: BackoffOptions;
  logger?: Logger;
}

/** Receives each batch of non-heartbeat events; the next poll waits until it resolves. */
export type EventSink = (events: AnyEvent[]) => Promise<void> | void;

/** Where events come from; the runtime only needs this much, so tests can push events in directly. */
export interface EventSource {
  start(sink: EventSink): Promise<Registration>;
  stop(): Promise<void>;
}

export class EventQueue implements EventSource {
  readonly #client: ApiClient;
  readonly #params: RegisterParams;
  readonly #backoff: BackoffOptions;
  readonly #log: Logger;
  #queueId: string | null = null;
  #lastEventId = -1;
  #abort = new AbortController();
  #loop: Promise<void> | undefined;
  /** The latest registration; refreshed on every re-registration. */
  registration: Registration | undefined;
  /** Called after a re-registration replaced a lost queue (the runtime catches up here). */
  onReregister: ((registration: Registration) => Promise<void> | void) | undefined;
  /** Called when the loop ends because of a fatal error. */
  onFatal: ((error: unknown) => void) | undefined;

  constructor(options: EventQueueOptions) {
    this.#client = options.client;
    this.#params = { apply_markdown: false, ...options.register };
    this.#backoff = { baseMs: 500, capMs: 30_000, ...options.backoff };
    this.#log = options.logger ?? silentLogger();
  }

  get queueId(): string | null {
    return this.#queueId;
  }

  get lastEventId(): number {
    return this.#lastEventId;
  }

  async #register(): Promise<Registration> {
    const registration = await this.#client.events.register(this.#params, {
      signal: this.#abort.signal,
    });
    this.#queueId = registration.queue_id;
    this.#lastEventId = registration.last_event_id;
    this.registration = registration;
    this.#log.info(
      { queueId: registration.queue_id, featureLevel: registration.zulip_feature_level },
      "event queue registered",
    );
    return registration;
  }

  /** Registers (failing fast on bad credentials) and starts polling in the background. */
  async start(sink: EventSink): Promise<Registration> {
    const registration = await this.#register();
    this.#loop = this.#run(sink);
    return registration;
  }

  async #run(sink: EventSink): Promise<void> {
    const signal = this.#abort.signal;
    let failures = 0;
    while (!signal.aborted) {
      try {
        if (this.#queueId === null) {
          const registration = await this.#register();
          await this.onReregister?.(registration);
        }
        const { events } = await this.#client.events.get(
          { queue_id: this.#queueId!, last_event_id: this.#lastEventId },
          { signal, retry: false },
        );
        failures = 0;
        const delivered: AnyEvent[] = [];
        for (const event of events) {
          if (event.id <= this.#lastEventId) continue;
          this.#lastEventId = event.id;
          if (event.type !== "heartbeat") delivered.push(event);
        }
        if (delivered.length > 0) await sink(delivered);
      } catch (error) {
        if (signal.aborted) break;
        const recovery = recoveryFor(error);
        if (recovery.action === "fatal") {
          this.#log.error(
            { err: error },
            "event queue stopped: the server refused the bot's credentials",
          );
          this.onFatal?.(error);
          return;
        }
        if (recovery.action === "reregister") {
          this.#log.warn({ queueId: this.#queueId }, "event queue lost; registering a new one");
          this.#queueId = null;
          continue;
        }
        const ms = recovery.action === "wait" ? recovery.ms : backoffDelay(failures, this.#backoff);
        failures++;
        this.#log.warn({ err: error, retryInMs: ms }, "polling failed; retrying");
        await sleep(ms, signal).catch(() => undefined);
      }
    }
  }

  /** Aborts the poll in flight, waits for the loop to end and deletes the queue. */
  async stop(): Promise<void> {
    this.#abort.abort(new Error("event queue stopped"));
    await this.#loop;
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
