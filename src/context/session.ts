// Conversation state: sessions per conversation (and per user) in the key-value store, and ask-and-wait dialogs.
import { readEntry, type KeyValueStore } from "../state/key-value/store.js";
import { conversationKey, type Conversation } from "../model/conversation.js";

/** JSON state of one conversation (or one user in it), kept in the bot's storage. */
export interface Session<T = Record<string, unknown>> {
  /** The stored state, or undefined when there is none (or it expired). */
  get(): Promise<T | undefined>;
  /** Replaces the state; `ttlMs` makes it expire. */
  set(value: T, options?: { ttlMs?: number }): Promise<void>;
  /** Reads, changes and writes the state; returns the new state. */
  update(change: (current: T | undefined) => T, options?: { ttlMs?: number }): Promise<T>;
  /** Forgets the state; resolves true when there was some. */
  clear(): Promise<boolean>;
}

/** Which session of a message: the conversation's, or one user's within the conversation. */
export interface SessionScope {
  conversation: Conversation;
  userId?: number;
}

/** The storage key of a session: `channel:12:topic` or `direct:1,5`, plus `:user:7` per user. */
export function sessionKey(scope: SessionScope): string {
  const base = conversationKey(scope.conversation);
  return scope.userId === undefined ? base : `${base}:user:${scope.userId}`;
}

/** A session over `store` under `key`; `defaultTtlMs` applies when `set` gives none. */
export function openSession<T>(
  store: KeyValueStore,
  key: string,
  defaultTtlMs?: number,
): Session<T> {
  const ttl = (options?: { ttlMs?: number }) => {
    const ttlMs = options?.ttlMs ?? defaultTtlMs;
    return ttlMs === undefined ? {} : { ttlMs };
  };
  return {
    get: () => store.get<T>(key),
    set: (value, options) => store.set(key, value, ttl(options)),
    async update(change, options) {
      const next = change(await store.get<T>(key));
      await store.set(key, next, ttl(options));
      return next;
    },
    clear: () => store.delete(key),
  };
}

/** A typed kind of session a plugin declares once with `bot.session<T>()`. */
export interface SessionKind<T> {
  /** The session of the message `ctx` belongs to. */
  of(ctx: { conversation: Conversation; sender: { userId: number } }): Session<T>;
}

export interface SessionKindOptions {
  /** One session per user in each conversation instead of one per conversation. Default false. */
  perUser?: boolean;
  /** Sessions expire this long after their last write. */
  ttlMs?: number;
}

/** Builds a session kind over a plugin's session store. */
export function sessionKind<T>(
  store: KeyValueStore,
  options: SessionKindOptions = {},
): SessionKind<T> {
  return {
    of: (ctx) =>
      openSession<T>(
        store,
        sessionKey({
          conversation: ctx.conversation,
          userId: options.perUser ? ctx.sender.userId : undefined,
        }),
        options.ttlMs,
      ),
  };
}

/**
 * The sessions of conversation `from` (its own and each user's) become those of `to`, in one
 * plugin's session store: a topic renamed or moved. A session `to` already has is kept (the moved
 * one is dropped); a moved one keeps the time it had left. Each is written under `to` before it
 * is deleted under `from`, so every node of a cluster can apply the same move. Resolves the
 * number this call moved.
 */
export async function moveSessions(
  store: KeyValueStore,
  from: string,
  to: string,
): Promise<number> {
  if (from === to) return 0;
  let moved = 0;
  for (const key of await store.list(from)) {
    if (key !== from && !/^:user:\d+$/.test(key.slice(from.length))) continue;
    if (await moveEntry(store, key, `${to}${key.slice(from.length)}`)) moved++;
  }
  return moved;
}

/** Copies the entry under `from` to `to` unless `to` has one, then deletes `from`; true when copied. */
async function moveEntry(store: KeyValueStore, from: string, to: string): Promise<boolean> {
  const entry = await readEntry(store, from);
  if (!entry) return false;
  const copied = !(await store.has(to));
  if (copied)
    await store.set(to, entry.value, entry.ttlMs === undefined ? {} : { ttlMs: entry.ttlMs });
  await store.delete(from);
  return copied;
}

interface Waiter<A> {
  resolve(answer: A | undefined): void;
  timer: NodeJS.Timeout;
  /** Told where the question's conversation went when its topic moved. */
  moved: ((to: Conversation) => void) | undefined;
}

/** A question a handler asked, as kept in storage while it waits for its answer. */
export interface OpenQuestion {
  question: string;
  /** Epoch milliseconds. */
  askedAt: number;
}

export interface DialogsOptions {
  /**
   * Where open questions are also written (with the question's timeout as expiry), so that after
   * a restart the answer can be recognised as one to a question whose handler is gone.
   */
  store?: KeyValueStore;
  now?: () => number;
  /** Called when writing to the store fails (the question still waits in memory). */
  onError?: (error: unknown) => void;
}

const QUESTION_CHARS = 200;

/**
 * Open questions: `wait` parks a promise under a key (conversation and user); the next message
 * with that key is `offer`ed to it instead of being routed; after the timeout it resolves undefined.
 * With a store, each open question is also kept there until answered, timed out or superseded;
 * the handler's promise cannot outlive the process, but `orphaned` finds the question after a restart.
 */
export class Dialogs<A> {
  readonly #waiting = new Map<string, Waiter<A>>();
  /** Keys of questions found in the store at `load`, asked by an earlier process. */
  readonly #orphans = new Set<string>();
  readonly #store: KeyValueStore | undefined;
  readonly #now: () => number;
  readonly #onError: (error: unknown) => void;

  constructor(options: DialogsOptions = {}) {
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError ?? (() => undefined);
  }

  /**
   * Waits for the answer under `key`; an earlier question under the same key resolves undefined.
   * `question` is what is kept in the store; `moved` is told where the conversation went when a
   * move (`move`) takes the question along.
   */
  wait(
    key: string,
    timeoutMs: number,
    question = "",
    moved?: (to: Conversation) => void,
  ): Promise<A | undefined> {
    this.#settle(key, undefined);
    this.#orphans.delete(key); // superseded by the new question
    const open: OpenQuestion = {
      question: question.slice(0, QUESTION_CHARS),
      askedAt: this.#now(),
    };
    this.#store?.set(key, open, { ttlMs: timeoutMs }).catch(this.#onError);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.#settle(key, undefined), timeoutMs);
      timer.unref?.();
      this.#waiting.set(key, { resolve, timer, moved });
    });
  }

  /** Notes which questions an earlier process left open (call once, before messages arrive). */
  async load(): Promise<void> {
    for (const key of (await this.#store?.list()) ?? []) this.#orphans.add(key);
  }

  /**
   * A question an earlier process asked under `key` (found by `load`) that nobody waits for; it
   * is forgotten as it is returned, so it is reported once. Costs no storage read for other keys.
   */
  async orphaned(key: string): Promise<OpenQuestion | undefined> {
    if (!this.#store || !this.#orphans.delete(key) || this.#waiting.has(key)) return undefined;
    const open = await this.#store.get<OpenQuestion>(key);
    if (open) await this.#store.delete(key);
    return open;
  }

  /**
   * A topic moved: every question whose key is `from` and a user ID now waits under `to` in its place
   * (and its asker is told `conversation`), so the answer comes from where the conversation went.
   * A question already waiting there stays; the moved one resolves undefined. The stored
   * questions move too, written before they are deleted (every node of a cluster may apply it).
   */
  async move(from: string, to: string, conversation: Conversation): Promise<void> {
    if (from === to) return;
    const target = (key: string) => `${to}${key.slice(from.length)}`;
    // `from` and a user ID, not a longer topic that starts the same ("a" is not "a|5").
    const moves = (key: string) => key.startsWith(from) && /^\d+$/.test(key.slice(from.length));
    for (const [key, waiter] of [...this.#waiting]) {
      if (!moves(key)) continue;
      this.#waiting.delete(key);
      if (this.#waiting.has(target(key))) {
        clearTimeout(waiter.timer);
        waiter.resolve(undefined);
        continue;
      }
      this.#waiting.set(target(key), waiter);
      waiter.moved?.(conversation);
    }
    for (const key of [...this.#orphans])
      if (moves(key)) {
        this.#orphans.delete(key);
        this.#orphans.add(target(key));
      }
    if (!this.#store) return;
    for (const key of await this.#store.list(from))
      if (moves(key)) await moveEntry(this.#store, key, target(key));
  }

  /** Hands `answer` to the question waiting under `key`; true when there was one. */
  offer(key: string, answer: A): boolean {
    return this.#settle(key, answer);
  }

  /** Drops the question under `key` (it resolves undefined). */
  cancel(key: string): void {
    this.#settle(key, undefined);
  }

  get size(): number {
    return this.#waiting.size;
  }

  /** Whether any question is open, here or left by an earlier process (false: nothing to offer). */
  mayHave(): boolean {
    return this.#waiting.size > 0 || this.#orphans.size > 0;
  }

  /**
   * Resolves every open question with undefined (the bot is stopping). The stored questions stay,
   * so the next start can tell whoever answers that their question was lost.
   */
  cancelAll(): void {
    for (const key of [...this.#waiting.keys()]) this.#settle(key, undefined, false);
  }

  #settle(key: string, answer: A | undefined, forget = true): boolean {
    const waiter = this.#waiting.get(key);
    if (!waiter) return false;
    this.#waiting.delete(key);
    clearTimeout(waiter.timer);
    if (forget) this.#store?.delete(key).catch(this.#onError);
    waiter.resolve(answer);
    return true;
  }
}
