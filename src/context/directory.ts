// The directory: who is who on the server (users by ID, mention and email), fetched as needed, cached and kept current by events.
import type { ApiClient } from "../client/client.js";
import { ApiError } from "../client/errors.js";
import { ROLES, type RoleName } from "../api/common.js";
import type { User } from "../api/users.js";
import { UserNames } from "./user-names.js";
import { sharesChannel } from "./visibility.js";

/** A user as commands and role checks see them. */
export interface ChatUser {
  userId: number;
  email: string;
  fullName: string;
  /** `owner`, `administrator`, `moderator`, `member` or `guest`; `unknown` for a role this library does not know. */
  role: RoleName | "unknown";
  /** The profile's IANA time zone; empty when the user has not set one. */
  timezone: string;
  isBot: boolean;
  isActive: boolean;
}

export interface DirectoryOptions {
  /** How long the channel list is trusted. Default 5 minutes. */
  listTtlMs?: number;
  /**
   * How long a fetched user (their role, above all) is trusted when no `realm_user` events keep
   * the cache current (see `keptBy`). Default 30 seconds.
   */
  roleTtlMs?: number;
  now?: () => number;
  /** Whether the realm lets guests see every user (`can_access_all_users_group`). Default: no. */
  guestsSeeEveryone?: () => boolean;
  /**
   * The event queue whose `realm_user` events reach `onRealmUser` (its registration), or
   * undefined when none does. While it is the same, cached users are kept current by its events
   * and trusted without a lifetime; when it changes (a new queue: events in between are lost),
   * everything cached is dropped and fetched again as it is needed. Without one, users are
   * trusted for `roleTtlMs`. Default: none.
   */
  keptBy?: () => object | undefined;
}

/** A `realm_user` event, as the queue hands it on: read tolerantly, field by field. */
export interface RealmUserEvent {
  op?: unknown;
  person?: unknown;
}

const roleName = (role: number): ChatUser["role"] =>
  (Object.entries(ROLES).find(([, id]) => id === role)?.[0] as RoleName | undefined) ?? "unknown";

export function toChatUser(u: User): ChatUser {
  return {
    userId: u.user_id,
    email: u.email,
    fullName: u.full_name,
    role: roleName(u.role),
    timezone: u.timezone,
    isBot: u.is_bot,
    isActive: u.is_active,
  };
}

/** A user object from an event or an answer not parsed with zod, if it has the fields a ChatUser needs. */
function chatUserOf(person: Record<string, unknown>): ChatUser | undefined {
  const { user_id, email, full_name, role, timezone, is_bot, is_active } = person;
  if (!Number.isSafeInteger(user_id) || typeof email !== "string" || typeof full_name !== "string")
    return undefined;
  return {
    userId: user_id as number,
    email,
    fullName: full_name,
    role: typeof role === "number" ? roleName(role) : "unknown",
    timezone: typeof timezone === "string" ? timezone : "",
    isBot: is_bot === true,
    isActive: is_active !== false,
  };
}

/** What a `realm_user` update says of a user, applied to their cached copy. */
function patched(user: ChatUser, person: Record<string, unknown>): ChatUser {
  const next = { ...user };
  if (typeof person.full_name === "string") next.fullName = person.full_name;
  if (typeof person.new_email === "string") next.email = person.new_email;
  if (typeof person.role === "number") next.role = roleName(person.role);
  if (typeof person.timezone === "string") next.timezone = person.timezone;
  if (typeof person.is_active === "boolean") next.isActive = person.is_active;
  return next;
}

/** The server's "no such user" (or "not one you may see") for a user fetched by ID or email. */
const isNoSuchUser = (error: unknown): boolean =>
  error instanceof ApiError && error.status === 400 && error.code === "BAD_REQUEST";

/** A mention that names several users: the `@**Name|id**` form tells them apart. */
export class AmbiguousNameError extends Error {
  override readonly name = "AmbiguousNameError";
  constructor(
    readonly fullName: string,
    readonly candidates: ChatUser[],
  ) {
    super(`several users are called ${fullName}`);
  }
}

/** A channel as command arguments resolve it. */
export interface ChatChannel {
  streamId: number;
  name: string;
}

/**
 * What plugins ask the directory (`bot.users`): a user by ID, by mention (`@**Name**`, which may
 * throw `AmbiguousNameError`) and by email, and whether one user may see another.
 */
export type UserLookup = Pick<Directory, "user" | "byMention" | "byEmail" | "canAccess">;

/** A cached user and when they were fetched (the lifetime matters only without events). */
interface Cached {
  user: ChatUser;
  at: number;
}

/**
 * Who is who on the server, fetched as needed and cached: a user by ID (GET /users/{user_id}) or
 * by email (GET /users/{email}), concurrent callers sharing one request. The organization's list
 * is never held: its cost would grow with the organization, while a bot meets few of its users.
 * `realm_user` events (`onRealmUser`) keep what is cached current in place: a joiner is added, an
 * update changes the one user, a removal drops them (fetched again if needed); nothing expires
 * while the same event queue feeds them (see `keptBy`). Names (`@**Name**`) are resolved through
 * `UserNames`, read only when a mention without an ID first needs them.
 */
export class Directory {
  readonly #api: ApiClient;
  readonly #listTtlMs: number;
  readonly #roleTtlMs: number;
  readonly #now: () => number;
  readonly #guestsSeeEveryone: () => boolean;
  readonly #keptBy: () => object | undefined;
  /** The event queue the cache was filled under (see `keptBy`). */
  #keeper: object | undefined;
  readonly #users = new Map<number, Cached>();
  /** Lowercased email → user ID, of the cached users. */
  readonly #emails = new Map<string, number>();
  /** Fetches in flight by user ID, and the updates that arrived meanwhile (applied when they land). */
  readonly #loading = new Map<
    number,
    { user: Promise<ChatUser | undefined>; updates: Record<string, unknown>[] }
  >();
  readonly #names: UserNames;
  #channels: { at: number; channels: Promise<ChatChannel[]> } | undefined;

  constructor(api: ApiClient, options: DirectoryOptions = {}) {
    this.#api = api;
    this.#listTtlMs = options.listTtlMs ?? 300_000;
    this.#roleTtlMs = options.roleTtlMs ?? 30_000;
    this.#now = options.now ?? Date.now;
    this.#guestsSeeEveryone = options.guestsSeeEveryone ?? (() => false);
    this.#keptBy = options.keptBy ?? (() => undefined);
    this.#names = new UserNames(api);
  }

  /**
   * The user with this ID if cached and current, without waiting (the reply guard asks for every
   * reply); undefined when `user()` would have to ask the server.
   */
  known(userId: number): ChatUser | undefined {
    const keeper = this.#currentKeeper();
    const cached = this.#users.get(userId);
    if (!cached) return undefined;
    if (keeper === undefined && this.#now() - cached.at >= this.#roleTtlMs) return undefined;
    return cached.user;
  }

  /** One user, from the cache when current (see `known`), else fetched by ID; undefined for none. */
  user(userId: number): Promise<ChatUser | undefined> {
    const known = this.known(userId);
    if (known) return Promise.resolve(known);
    const loading = this.#loading.get(userId);
    if (loading) return loading.user;
    const keeper = this.#keeper;
    const entry = {
      user: undefined as unknown as Promise<ChatUser | undefined>,
      updates: [] as Record<string, unknown>[],
    };
    entry.user = this.#api.users.get({ user_id: userId }).then(
      (r) => {
        this.#settled(userId, entry);
        let user = toChatUser(r.user);
        for (const update of entry.updates) user = patched(user, update);
        // Fetched under an earlier queue: handed to its callers, not cached (events were lost).
        if (this.#keeper === keeper) this.#put(user);
        return user;
      },
      (error: unknown) => {
        this.#settled(userId, entry);
        if (isNoSuchUser(error)) return undefined;
        throw error;
      },
    );
    this.#loading.set(userId, entry);
    return entry.user;
  }

  /** The user a mention names: by ID when `@**Name|id**` gives one, else by full name. */
  async byMention(fullName: string, userId?: number): Promise<ChatUser | undefined> {
    if (userId !== undefined) return this.user(userId);
    const wanted = fullName.trim().toLowerCase();
    const candidates = await Promise.all(
      (await this.#names.idsOf(wanted)).map((id) => this.user(id)),
    );
    // The names may be behind by a rename: each user found is checked against the mention.
    const found = candidates.filter(
      (u): u is ChatUser => u !== undefined && u.isActive && u.fullName.toLowerCase() === wanted,
    );
    if (found.length > 1) throw new AmbiguousNameError(fullName, found);
    return found[0];
  }

  /**
   * Whether `viewerId` can see user `targetId`: members see everyone; so do guests when the realm
   * lets them (`guestsSeeEveryone`); otherwise a guest sees only themselves, bots and users
   * sharing a channel with them (see `canUserAccessUser` for why not DM partners).
   */
  async canAccess(viewerId: number, targetId: number): Promise<boolean> {
    if (viewerId === targetId) return true;
    const viewer = await this.user(viewerId);
    if (!viewer?.isActive) return false;
    if (viewer.role !== "guest" || this.#guestsSeeEveryone()) return true;
    if ((await this.user(targetId))?.isBot) return true;
    return sharesChannel(this.#api, viewerId, targetId);
  }

  /** The user with this (API) email: from the cache, else fetched with GET /users/{email}. */
  async byEmail(email: string): Promise<ChatUser | undefined> {
    const wanted = email.trim().toLowerCase();
    const id = this.#emails.get(wanted);
    const cached = id === undefined ? undefined : this.known(id);
    if (cached && cached.email.toLowerCase() === wanted) return cached;
    const keeper = this.#currentKeeper();
    try {
      const user = toChatUser((await this.#api.users.getByEmail({ email: email.trim() })).user);
      if (this.#keeper === keeper && !this.#loading.has(user.userId)) this.#put(user);
      return user;
    } catch (error) {
      if (isNoSuchUser(error)) return undefined;
      throw error;
    }
  }

  /**
   * Applies a `realm_user` event to what is cached, in place: `add` caches the joiner, `update`
   * changes the one user it names (if cached, or being fetched), `remove` drops them. Nothing is
   * fetched.
   */
  onRealmUser(event: RealmUserEvent): void {
    this.#currentKeeper();
    const person = event.person as Record<string, unknown> | undefined;
    if (!person || typeof person !== "object" || !Number.isSafeInteger(person.user_id)) return;
    const userId = person.user_id as number;
    const cached = this.#users.get(userId);
    if (event.op === "add") {
      const user = chatUserOf(person);
      if (!user) return;
      this.#put(user);
      this.#names.named(userId, user.fullName, cached?.user.fullName);
    } else if (event.op === "update") {
      this.#loading.get(userId)?.updates.push(person);
      if (typeof person.full_name === "string")
        this.#names.named(userId, person.full_name, cached?.user.fullName);
      if (cached) this.#put(patched(cached.user, person), cached.at);
    } else if (event.op === "remove") {
      this.#drop(userId);
    }
  }

  /** Every channel the bot can see (cached for `listTtlMs`). */
  channels(): Promise<ChatChannel[]> {
    const now = this.#now();
    if (!this.#channels || now - this.#channels.at >= this.#listTtlMs) {
      const channels = this.#api.channels
        .list()
        .then((r) => r.streams.map((c) => ({ streamId: c.stream_id, name: c.name })));
      channels.catch(() => {
        if (this.#channels?.channels === channels) this.#channels = undefined;
      });
      this.#channels = { at: now, channels };
    }
    return this.#channels.channels;
  }

  /** The channel called `name` (case-insensitively), refreshing the list once if it is unknown. */
  async channelByName(name: string): Promise<ChatChannel | undefined> {
    const wanted = name.trim().toLowerCase();
    const find = (all: ChatChannel[]) => all.find((c) => c.name.toLowerCase() === wanted);
    const found = find(await this.channels());
    if (found) return found;
    this.#channels = undefined;
    return find(await this.channels());
  }

  /** Forgets everything cached (users, names, channels), e.g. after a `stream` event. */
  invalidate(): void {
    this.#users.clear();
    this.#emails.clear();
    this.#loading.clear();
    this.#names.forget();
    this.#channels = undefined;
  }

  /** The event queue keeping the cache current; a new one drops what the old one kept. */
  #currentKeeper(): object | undefined {
    const keeper = this.#keptBy();
    if (keeper !== this.#keeper) {
      const hadOne = this.#keeper !== undefined;
      this.#keeper = keeper;
      if (hadOne) {
        this.#users.clear();
        this.#emails.clear();
        this.#loading.clear();
        this.#names.forget();
      }
    }
    return keeper;
  }

  /** A fetch ended: it is no longer the one callers share (unless a newer one replaced it). */
  #settled(userId: number, entry: object): void {
    if (this.#loading.get(userId) === entry) this.#loading.delete(userId);
  }

  #put(user: ChatUser, at = this.#now()): void {
    const old = this.#users.get(user.userId);
    if (old) this.#emails.delete(old.user.email.toLowerCase());
    this.#users.set(user.userId, { user, at });
    this.#emails.set(user.email.toLowerCase(), user.userId);
  }

  #drop(userId: number): void {
    const old = this.#users.get(userId);
    if (!old) return;
    this.#emails.delete(old.user.email.toLowerCase());
    this.#users.delete(userId);
  }
}
