// A Chat SDK state adapter in memory: subscriptions, locks, cache, lists and queues of one process (tests, a single bot).
import type { Lock, QueueEntry, StateAdapter } from "chat";
import { randomUUID } from "node:crypto";

interface Cached {
  value: unknown;
  expiresAt: number | undefined;
}

/**
 * Chat SDK's state in this process's memory. What it holds is lost when the process ends: a
 * bot whose subscriptions must survive a restart needs a persistent state adapter (Chat SDK's
 * Redis one). Delivery does not depend on it: topicbot's journal keeps exactly-once.
 */
export class MemoryChatState implements StateAdapter {
  readonly #subscriptions = new Set<string>();
  readonly #locks = new Map<string, Lock>();
  readonly #cache = new Map<string, Cached>();
  readonly #queues = new Map<string, QueueEntry[]>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async connect(): Promise<void> {}
  async disconnect(): Promise<void> {}

  async subscribe(threadId: string): Promise<void> {
    this.#subscriptions.add(threadId);
  }
  async unsubscribe(threadId: string): Promise<void> {
    this.#subscriptions.delete(threadId);
  }
  async isSubscribed(threadId: string): Promise<boolean> {
    return this.#subscriptions.has(threadId);
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
    const cached = this.#cache.get(key);
    if (!cached) return null;
    if (cached.expiresAt !== undefined && cached.expiresAt <= this.#now()) {
      this.#cache.delete(key);
      return null;
    }
    return cached.value as T;
  }
  async set<T = unknown>(key: string, value: T, ttlMs?: number): Promise<void> {
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
