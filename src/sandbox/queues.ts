// Server-side event queues: registration, filtering, long-polls with heartbeats, idle garbage collection.
import { randomBytes } from "node:crypto";
import type { RealmState } from "./realmState.js";
import type { StoredMessage } from "./model.js";
import { SandboxError } from "./errors.js";
import { compileNarrow } from "./narrow.js";
import { messageEvent } from "./messageView.js";

export interface QueueOptions {
  /** Seconds a long-poll waits before answering with a heartbeat. */
  heartbeatSeconds: number;
  /** Seconds without a poll after which a queue is collected. */
  idleTimeoutSeconds: number;
}

export interface QueueFilter {
  eventTypes?: string[];
  allPublicStreams: boolean;
  applyMarkdown: boolean;
  allowEmptyTopicName: boolean;
  /** `client_gravatar` (default true): null `avatar_url` where the client computes it. */
  clientGravatar?: boolean;
  /** `client_capabilities.bulk_message_deletion`: `delete_message` events carry `message_ids`. */
  bulkMessageDeletion?: boolean;
  narrow: [string, string][];
}

interface Waiter {
  resolve: () => void;
}

/** One registered queue: a user's buffered events not yet acknowledged. */
export class ServerQueue {
  readonly id: string;
  readonly userId: number;
  readonly filter: QueueFilter;
  readonly events: Record<string, unknown>[] = [];
  lastAccess: number;
  #nextEventId = 0;
  #waiters = new Set<Waiter>();

  constructor(id: string, userId: number, filter: QueueFilter, now: number) {
    this.id = id;
    this.userId = userId;
    this.filter = filter;
    this.lastAccess = now;
  }

  get lastEventId(): number {
    return this.#nextEventId - 1;
  }

  get polling(): boolean {
    return this.#waiters.size > 0;
  }

  wants(type: string): boolean {
    return type === "heartbeat" || !this.filter.eventTypes || this.filter.eventTypes.includes(type);
  }

  /** Appends an event (if the queue asked for its type) and wakes any waiting poll. */
  push(event: Record<string, unknown> & { type: string }): void {
    if (this.wants(event.type)) this.#append({ ...event, id: this.#nextEventId++ });
  }

  /**
   * Queues a `message` event of a message viewed for this queue, built whole as one object
   * literal: the copy `push` makes, with `id` added last, took several times the heap of the
   * event itself (about 300 bytes against 90), kept until the client acknowledges it.
   */
  pushMessage(message: Record<string, unknown>, flags: string[], localMessageId?: string): void {
    if (!this.wants("message")) return;
    const id = this.#nextEventId++;
    this.#append(
      localMessageId === undefined
        ? { type: "message", message, flags, id }
        : { type: "message", message, flags, local_message_id: localMessageId, id },
    );
  }

  /** Queues a numbered event and wakes any waiting poll. */
  #append(event: Record<string, unknown>): void {
    this.events.push(event);
    for (const waiter of this.#waiters) waiter.resolve();
  }

  /** Drops events up to `lastEventId` (the client acknowledged them). */
  acknowledge(lastEventId: number): void {
    while (this.events.length > 0 && (this.events[0]!.id as number) <= lastEventId)
      this.events.shift();
  }

  /** Waits until an event exists, the heartbeat is due, or the request goes away. */
  async wait(heartbeatMs: number, signal: AbortSignal): Promise<void> {
    if (this.events.length > 0 || signal.aborted) return;
    await new Promise<void>((resolve) => {
      const waiter: Waiter = { resolve: () => done() };
      const timer = setTimeout(() => {
        this.push({ type: "heartbeat" });
      }, heartbeatMs);
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.#waiters.delete(waiter);
        resolve();
      };
      signal.addEventListener("abort", done, { once: true });
      this.#waiters.add(waiter);
    });
  }

  /** Ends every waiting poll at once (queue deleted or expired). */
  wakeAll(): void {
    for (const waiter of this.#waiters) waiter.resolve();
  }
}

export class QueueRegistry {
  readonly options: QueueOptions;
  readonly #queues = new Map<string, ServerQueue>();
  readonly #generation = randomBytes(4).toString("hex");
  #counter = 0;
  #sweeper: NodeJS.Timeout | undefined;
  #now: () => number;

  constructor(options: QueueOptions, now: () => number) {
    this.options = options;
    this.#now = now;
    const sweepMs = Math.max(50, Math.min(60_000, (options.idleTimeoutSeconds * 1000) / 4));
    this.#sweeper = setInterval(() => this.sweep(), sweepMs);
    this.#sweeper.unref();
  }

  create(userId: number, filter: QueueFilter): ServerQueue {
    const queue = new ServerQueue(
      `${this.#generation}:${this.#counter++}`,
      userId,
      filter,
      this.#now(),
    );
    this.#queues.set(queue.id, queue);
    return queue;
  }

  /** The user's queue, or `BAD_EVENT_QUEUE_ID`. */
  get(queueId: string, userId: number): ServerQueue {
    const queue = this.#queues.get(queueId);
    if (!queue || queue.userId !== userId) {
      throw new SandboxError("BAD_EVENT_QUEUE_ID", `Bad event queue ID: ${queueId}`, {
        extra: { queue_id: queueId },
      });
    }
    return queue;
  }

  delete(queueId: string, userId: number): void {
    const queue = this.get(queueId, userId);
    this.#queues.delete(queueId);
    queue.wakeAll();
  }

  /** Forgets a queue as if it expired; its next poll gets `BAD_EVENT_QUEUE_ID`. */
  expire(queueId: string): boolean {
    const queue = this.#queues.get(queueId);
    if (!queue) return false;
    this.#queues.delete(queueId);
    queue.wakeAll();
    return true;
  }

  all(): ServerQueue[] {
    return [...this.#queues.values()];
  }

  forUser(userId: number): ServerQueue[] {
    return this.all().filter((q) => q.userId === userId);
  }

  /** Collects queues nobody polled for longer than the idle timeout. */
  sweep(): void {
    const limit = this.#now() - this.options.idleTimeoutSeconds * 1000;
    for (const queue of this.#queues.values()) {
      if (!queue.polling && queue.lastAccess < limit) this.#queues.delete(queue.id);
    }
  }

  /** Sends a `message` event to the queues of everyone who receives the message. */
  deliverMessage(
    realm: RealmState,
    message: StoredMessage,
    localEcho?: { queueId: string; localId: string },
  ): void {
    const channel =
      message.streamId === undefined ? undefined : realm.channels.get(message.streamId);
    for (const queue of this.#queues.values()) {
      const user = realm.users.get(queue.userId);
      if (!user || !queue.wants("message")) continue;
      const receives =
        message.recipients.includes(user.userId) ||
        message.senderId === user.userId ||
        // `all_public_streams` reaches only what GET /messages/{id} would show (not guests).
        (queue.filter.allPublicStreams &&
          channel !== undefined &&
          !channel.inviteOnly &&
          realm.canSee(user, message));
      if (!receives || !matchesQueueNarrow(queue.filter.narrow, message, realm, user.userId))
        continue;
      const { message: view, flags } = messageEvent(realm, message, user, queue.filter);
      queue.pushMessage(
        view,
        flags,
        localEcho && localEcho.queueId === queue.id ? localEcho.localId : undefined,
      );
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
    for (const queue of this.#queues.values()) queue.wakeAll();
    this.#queues.clear();
  }
}

/** The registration narrow, through the same evaluator as GET /messages; a narrow that no longer resolves matches nothing. */
function matchesQueueNarrow(
  narrow: [string, string][],
  message: StoredMessage,
  realm: RealmState,
  userId: number,
): boolean {
  if (narrow.length === 0) return true;
  try {
    return compileNarrow(realm, realm.users.get(userId)!, narrow).matches(message);
  } catch {
    return false;
  }
}
