// Followed conversations: after a mention the bot hears every message of a topic or DM until unfollowed or idle.
import type { KeyValueStore } from "../state/key-value/store.js";

/** One follow: which plugin follows, and until when it stays without activity. */
export interface Follow {
  /** The conversation key (see `conversationKey`). */
  conversation: string;
  plugin: string;
  /** Idle time after which the follow ends, in ms. */
  idleMs: number;
  /** Epoch ms of the last message seen there (or of the follow). */
  lastActive: number;
}

export interface FollowOptions {
  /** Minutes without a message after which the bot stops following. Default 60. */
  idleMinutes?: number;
}

type Entry = Record<string, Follow>; // by plugin

/**
 * The follows, kept in the bot's storage (so they survive restarts and, on a shared store, are
 * seen by every node), with each conversation's entry cached after its first read: checking a
 * message costs a map look-up.
 *
 * @example
 * const follows = new Follows(storage.namespace("topicbot:follows"), Date.now);
 * await follows.follow("channel:3:design", "assistant", { idleMinutes: 30 });
 * await follows.followers("channel:3:design"); // ["assistant"]
 */
export class Follows {
  readonly #store: KeyValueStore;
  readonly #now: () => number;
  readonly #cache = new Map<string, Entry>();
  /** After `load()`, the cache holds every follow this bot has: no storage read per message. */
  #loaded = false;

  constructor(store: KeyValueStore, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** Reads every stored follow (once, at start), so checking a message needs no storage read. */
  async load(): Promise<void> {
    for (const key of await this.#store.list()) {
      const entry = await this.#store.get<Entry>(key);
      if (entry && Object.keys(entry).length > 0) this.#cache.set(key, entry);
    }
    this.#loaded = true;
  }

  /** False while no conversation is followed: the runtime then skips the look-up entirely. */
  get maybeAny(): boolean {
    return !this.#loaded || this.#cache.size > 0;
  }

  /**
   * The conversation `from` is now `to` (a topic renamed or moved): its follows go there, merged
   * with any already there (per plugin, the later activity wins). The cached entry moves at once;
   * the stored one is written under `to` before it is deleted under `from`, so every node of a
   * cluster can apply the same move: one that finds `from` gone reads what another wrote.
   */
  async move(from: string, to: string): Promise<void> {
    if (from === to) return;
    const cached = this.#cache.get(from);
    this.#cache.delete(from);
    if (cached) this.#cache.set(to, merged(this.#cache.get(to) ?? {}, cached, to));
    const stored = await this.#store.get<Entry>(from);
    const there = (await this.#store.get<Entry>(to)) ?? {};
    const all = merged(merged(there, stored ?? {}, to), this.#cache.get(to) ?? {}, to);
    if (stored) await this.#write(to, all);
    else if (Object.keys(all).length > 0) this.#cache.set(to, all);
    await this.#store.delete(from);
  }

  async follow(conversation: string, plugin: string, options: FollowOptions = {}): Promise<void> {
    const idleMinutes = options.idleMinutes ?? 60;
    if (!(idleMinutes > 0 && idleMinutes <= 60 * 24 * 365))
      throw new RangeError(`follow: idleMinutes must be between 0 and a year, got ${idleMinutes}`);
    const entry = { ...(await this.#read(conversation)) };
    entry[plugin] = { conversation, plugin, idleMs: idleMinutes * 60_000, lastActive: this.#now() };
    await this.#write(conversation, entry);
  }

  /** Ends `plugin`'s follow of the conversation (every plugin's when none is named). */
  async unfollow(conversation: string, plugin?: string): Promise<void> {
    const entry = { ...(await this.#read(conversation)) };
    if (plugin === undefined) for (const p of Object.keys(entry)) delete entry[p];
    else delete entry[plugin];
    await this.#write(conversation, entry);
  }

  /** The plugins following the conversation now (idle ones are dropped). */
  async followers(conversation: string): Promise<string[]> {
    const entry = await this.#read(conversation);
    const now = this.#now();
    const live = Object.values(entry).filter((f) => now - f.lastActive < f.idleMs);
    if (live.length !== Object.keys(entry).length)
      await this.#write(conversation, Object.fromEntries(live.map((f) => [f.plugin, f])));
    return live.map((f) => f.plugin);
  }

  /** A message arrived in the conversation: its follows stay alive for another idle period. */
  async touch(conversation: string): Promise<void> {
    const entry = await this.#read(conversation);
    if (Object.keys(entry).length === 0) return;
    const now = this.#now();
    const next: Entry = {};
    for (const [plugin, f] of Object.entries(entry))
      if (now - f.lastActive < f.idleMs) next[plugin] = { ...f, lastActive: now };
    await this.#write(conversation, next);
  }

  /** Every live follow (for `bot check` and the dev console). */
  async list(): Promise<Follow[]> {
    const now = this.#now();
    const out: Follow[] = [];
    for (const key of await this.#store.list()) {
      const entry = (await this.#store.get<Entry>(key)) ?? {};
      for (const f of Object.values(entry)) if (now - f.lastActive < f.idleMs) out.push(f);
    }
    return out;
  }

  async #read(conversation: string): Promise<Entry> {
    const cached = this.#cache.get(conversation);
    if (cached) return cached;
    if (this.#loaded) return {};
    const stored = (await this.#store.get<Entry>(conversation)) ?? {};
    this.#cache.set(conversation, stored);
    return stored;
  }

  async #write(conversation: string, entry: Entry): Promise<void> {
    if (Object.keys(entry).length === 0) this.#cache.delete(conversation);
    else this.#cache.set(conversation, entry);
    const longest = Math.max(0, ...Object.values(entry).map((f) => f.idleMs));
    if (longest === 0) await this.#store.delete(conversation);
    else await this.#store.set(conversation, entry, { ttlMs: longest });
  }
}

/** Two conversations' follows as one, under `conversation`: per plugin, the later activity wins. */
function merged(a: Entry, b: Entry, conversation: string): Entry {
  const out: Entry = {};
  for (const f of [...Object.values(a), ...Object.values(b)]) {
    const kept = out[f.plugin];
    if (!kept || f.lastActive > kept.lastActive) out[f.plugin] = { ...f, conversation };
  }
  return out;
}

/** Names for the channels and users in conversation keys (from the server, for people). */
export interface FollowNames {
  channel(streamId: number): string | undefined;
  user(userId: number): string | undefined;
}

/**
 * A follow in words, for `bot check` and the dev console: where, which plugin, and for how long.
 *
 * @example
 * describeFollow(follow, names, Date.now()); // "#general > design: assistant (ends after 30 min without a message; last message 2 min ago)"
 */
export function describeFollow(follow: Follow, names: FollowNames, now: number): string {
  return `${followPlace(follow.conversation, names)}: ${follow.plugin} (ends after ${minutes(follow.idleMs)} without a message; last message ${minutes(Math.max(0, now - follow.lastActive))} ago)`;
}

/** `#general > design` or `DM with Mia Member, Topic Bot` for a conversation key. */
export function followPlace(conversation: string, names: FollowNames): string {
  const channel = /^channel:(\d+):(.*)$/s.exec(conversation);
  if (channel) {
    const id = Number(channel[1]);
    return `#${names.channel(id) ?? `channel ${id}`} > ${channel[2]}`;
  }
  const direct = /^direct:(.*)$/s.exec(conversation);
  if (direct) {
    const ids = direct[1]!.split(",").map(Number);
    return `DM with ${ids.map((id) => names.user(id) ?? `user ${id}`).join(", ")}`;
  }
  return conversation;
}

const minutes = (ms: number): string => `${Math.round(ms / 60_000)} min`;
