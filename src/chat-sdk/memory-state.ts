// A Chat SDK state adapter: subscriptions, values and lists kept in topicbot's store once the plugin runs (in memory before), locks and queues of one process.
import type { Lock, QueueEntry, StateAdapter } from "chat";
import { randomUUID } from "node:crypto";
import type { KeyValueStore } from "../state/key-value/store.js";

interface Cached {
  value: unknown;
  expiresAt: number | undefined;
}

/**
 * Chat SDK's state. `chatSdkPlugin` keeps it in the plugin's storage (`keepIn`): subscriptions,
 * values (`thread.setState`, the cache) and lists outlive a restart wherever the bot's `storage:`
 * keeps data (a file, Redis). Locks and queues stay in this process's memory: topicbot hands a
 * topic's messages over one at a time, so they are never contended across processes. Without
 * the plugin (or before it starts) everything is in memory and lost when the process ends.
 */
export class MemoryChatState implements StateAdapter {
  /** Subscribed threads, each with the ID of the message whose handling subscribed it (0: none). */
  readonly #subscriptions = new Map<string, number>();
  readonly #locks = new Map<string, Lock>();
  readonly #cache = new Map<string, Cached>();
  readonly #queues = new Map<string, QueueEntry[]>();
  readonly #now: () => number;
  #store: KeyValueStore | undefined;
  #handling: () => number | undefined = () => undefined;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /**
   * Keeps subscriptions, values and lists in `store` from now on (the plugin does, at setup).
   * `handling` names the message being handled: a thread it subscribed counts as subscribed for
   * later messages only, so a message handled again after a crash is routed as the first time
   * (a mention that subscribed stays a new mention), not as a message of a subscribed thread.
   */
  keepIn(store: KeyValueStore, handling?: () => number | undefined): void {
    this.#store = store;
    if (handling) this.#handling = handling;
  }

  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {}

  async subscribe(threadId: string): Promise<void> {
    const since = this.#handling() ?? 0;
    if (this.#subscriptions.has(threadId) || (await this.#since(threadId)) !== undefined) return;
    this.#subscriptions.set(threadId, since);
    await this.#store?.set(`subscribed:${threadId}`, since);
  }
  async unsubscribe(threadId: string): Promise<void> {
    this.#subscriptions.delete(threadId);
    await this.#store?.delete(`subscribed:${threadId}`);
  }
  async isSubscribed(threadId: string): Promise<boolean> {
    const since = await this.#since(threadId);
    if (since === undefined) return false;
    const current = this.#handling();
    return current === undefined || since < current;
  }

  /** The message ID a thread was subscribed during (0: outside one), or undefined when it is not. */
  async #since(threadId: string): Promise<number | undefined> {
    const known = this.#subscriptions.get(threadId);
    if (known !== undefined || !this.#store) return known;
    const stored = await this.#store.get<number>(`subscribed:${threadId}`);
    if (stored !== undefined) this.#subscriptions.set(threadId, stored);
    return stored;
  }

  async acquireLock(threadId: string, ttlMs: number): Promise<Lock | null> {
    const held = this.#locks.get(threadId);
    if (held && held.expiresAt > this.#now()) return null;
    const lock = { threadId, token: randomUUID(), expiresAt: this.#now() + ttlMs };
    this.#locks.set(threadId, lock);
    return lock;
  }
  async extendLock(lock: Lock, ttlMs: number): Promise<boolean> {
    const held = this.#locks.get(lock.threadId);
    if (held?.token !== lock.token || held.expiresAt <= this.#now()) return false;
    held.expiresAt = this.#now() + ttlMs;
    return true;
  }
  async releaseLock(lock: Lock): Promise<void> {
    if (this.#locks.get(lock.threadId)?.token === lock.token) this.#locks.delete(lock.threadId);
  }
  async forceReleaseLock(threadId: string): Promise<void> {
    this.#locks.delete(threadId);
  }

  async get<T = unknown>(key: string): Promise<T | null> {
    if (this.#store) return ((await this.#store.get<T>(`value:${key}`)) ?? null) as T | null;
    const cached = this.#cache.get(key);
    if (!cached) return null;
    if (cached.expiresAt !== undefined && cached.expiresAt <= this.#now()) {
      this.#cache.delete(key);
      return null;
    }
    return cached.value as T;
  }
  async set<T = unknown>(key: string, value: T, ttlMs?: number): Promise<void> {
    if (this.#store)
      return this.#store.set(`value:${key}`, value, ttlMs === undefined ? {} : { ttlMs });
    this.#cache.set(key, {
      value,
      expiresAt: ttlMs === undefined ? undefined : this.#now() + ttlMs,
    });
  }
  async setIfNotExists(key: string, value: unknown, ttlMs?: number): Promise<boolean> {
    if ((await this.get(key)) !== null) return false;
    await this.set(key, value, ttlMs);
    return true;
  }
  async delete(key: string): Promise<void> {
    this.#cache.delete(key);
    await this.#store?.delete(`value:${key}`);
  }

  async appendToList(
    key: string,
    value: unknown,
    options: { maxLength?: number; ttlMs?: number } = {},
  ): Promise<void> {
    const list = [...((await this.get<unknown[]>(key)) ?? []), value];
    const kept = options.maxLength === undefined ? list : list.slice(-options.maxLength);
    await this.set(key, kept, options.ttlMs);
  }
  async getList<T = unknown>(key: string): Promise<T[]> {
    return [...((await this.get<T[]>(key)) ?? [])];
  }

  async enqueue(threadId: string, entry: QueueEntry, maxSize: number): Promise<number> {
    const queue = this.#queues.get(threadId) ?? [];
    queue.push(entry);
    while (queue.length > maxSize) queue.shift();
    this.#queues.set(threadId, queue);
    return queue.length;
  }
  async dequeue(threadId: string): Promise<QueueEntry | null> {
    return this.#queues.get(threadId)?.shift() ?? null;
  }
  async queueDepth(threadId: string): Promise<number> {
    return this.#queues.get(threadId)?.length ?? 0;
  }
}
