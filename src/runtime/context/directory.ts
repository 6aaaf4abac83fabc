// The directory: who is who on the server (users by ID, mention and email), cached with short lifetimes.
import type { ApiClient } from "../../client/client.js";
import { ROLES, type RoleName } from "../../api/common.js";
import { user as userSchema, type User } from "../../api/users.js";
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
  /** How long the full user list is trusted. Default 5 minutes. */
  listTtlMs?: number;
  /** How long one user's role is trusted before asking again. Default 30 seconds. */
  roleTtlMs?: number;
  now?: () => number;
  /** The server's feature level; `user_ids` on the user list needs 384. */
  featureLevel?: () => number | undefined;
  /** Whether the realm lets guests see every user (`can_access_all_users_group`). Default: no. */
  guestsSeeEveryone?: () => boolean;
  /**
   * The latest registration, when the bot registered for `realm_user`: its `realm_users` and
   * `realm_non_active_users` are the list GET /users would answer, so the first list is taken
   * from them instead of asking (one request less before the first answer; the queue's
   * `realm_user` events keep it current from there, as they do a fetched list).
   */
  registration?: () => RegisteredUsers | undefined;
}

/** A POST /register answer, whose `realm_users` and `realm_non_active_users` are read when present. */
export type RegisteredUsers = Readonly<Record<string, unknown>>;

/**
 * How long after the list was read a user missing from it makes `usersIncluding` read it again:
 * a user who joined since, before the `realm_user` event said so, is found; a sender who is in no
 * list (a system bot) costs at most one GET /users this often.
 */
const MISS_REFRESH_MS = 1_000;

/** A registration's users, validated as GET /users validates them; undefined when it has none. */
function registeredMembers(registration: RegisteredUsers): User[] | undefined {
  if (registration.realm_users === undefined) return undefined;
  const lists = [registration.realm_users, registration.realm_non_active_users ?? []];
  const members: User[] = [];
  for (const list of lists) {
    // Once per registration: zod's JIT would cost more than it saves (see the client's `zodOptions`).
    const parsed = userSchema.array().safeParse(list, { jitless: true });
    if (!parsed.success) return undefined;
    members.push(...parsed.data);
  }
  return members;
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

/** Users of the server, fetched with GET /users and cached; one request serves concurrent callers. */
/** A channel as command arguments resolve it. */
export interface ChatChannel {
  streamId: number;
  name: string;
}

export class Directory {
  readonly #api: ApiClient;
  readonly #listTtlMs: number;
  readonly #roleTtlMs: number;
  readonly #now: () => number;
  readonly #featureLevel: () => number | undefined;
  readonly #guestsSeeEveryone: () => boolean;
  readonly #registration: () => RegisteredUsers | undefined;
  /** The registration the list was last taken from (each is used once). */
  #listedFrom: RegisteredUsers | undefined;
  #list: { at: number; users: Promise<ChatUser[]>; registered: boolean } | undefined;
  #channels: { at: number; channels: Promise<ChatChannel[]> } | undefined;
  readonly #fresh = new Map<number, { at: number; user: Promise<ChatUser | undefined> }>();

  constructor(api: ApiClient, options: DirectoryOptions = {}) {
    this.#api = api;
    this.#listTtlMs = options.listTtlMs ?? 300_000;
    this.#roleTtlMs = options.roleTtlMs ?? 30_000;
    this.#now = options.now ?? Date.now;
    this.#featureLevel = options.featureLevel ?? (() => undefined);
    this.#guestsSeeEveryone = options.guestsSeeEveryone ?? (() => false);
    this.#registration = options.registration ?? (() => undefined);
  }

  /**
   * Every user the bot can see (cached for `listTtlMs`): from a registration not yet used, else
   * from GET /users.
   */
  users(): Promise<ChatUser[]> {
    const now = this.#now();
    if (!this.#list || now - this.#list.at >= this.#listTtlMs) {
      const registered = this.#registeredList();
      if (registered)
        this.#list = { at: now, users: Promise.resolve(registered), registered: true };
      else {
        const users = this.#api.users.list().then((r) => r.members.map(toChatUser));
        users.catch(() => {
          if (this.#list?.users === users) this.#list = undefined;
        });
        this.#list = { at: now, users, registered: false };
      }
    }
    return this.#list.users;
  }

  /**
   * `users()` for a lookup of `userId` that missed: when the list came from a registration or was
   * read over MISS_REFRESH_MS ago, and `userId` is still not in it, it is read again from the
   * server (a user who joined since is found; see MISS_REFRESH_MS).
   */
  async usersIncluding(userId: number): Promise<ChatUser[]> {
    const users = await this.users();
    if (users.some((u) => u.userId === userId)) return users;
    const list = this.#list;
    if (list && (list.registered || this.#now() - list.at >= MISS_REFRESH_MS))
      this.#list = undefined;
    return this.users();
  }

  /** The current registration's users, the first time it is asked for them. */
  #registeredList(): ChatUser[] | undefined {
    const registration = this.#registration();
    if (!registration || registration === this.#listedFrom) return undefined;
    this.#listedFrom = registration;
    return registeredMembers(registration)?.map(toChatUser);
  }

  /**
   * One user, as fresh as `roleTtlMs`: asks the server with `user_ids` when it supports it
   * (feature level 384), otherwise refreshes the whole list.
   */
  async user(userId: number): Promise<ChatUser | undefined> {
    const now = this.#now();
    const cached = this.#fresh.get(userId);
    if (cached && now - cached.at < this.#roleTtlMs) return cached.user;
    const level = this.#featureLevel();
    const user =
      level !== undefined && level >= 384
        ? this.#api.users
            .list({ user_ids: [userId] })
            .then((r) => r.members.map(toChatUser).find((u) => u.userId === userId))
        : this.#refreshList().then((all) => all.find((u) => u.userId === userId));
    user.catch(() => this.#fresh.delete(userId));
    this.#fresh.set(userId, { at: now, user });
    return user;
  }

  /** The user a mention names: by ID when `@**Name|id**` gives one, else by full name. */
  async byMention(fullName: string, userId?: number): Promise<ChatUser | undefined> {
    const users = await this.users();
    if (userId !== undefined) return users.find((u) => u.userId === userId);
    const wanted = fullName.trim().toLowerCase();
    const found = users.filter((u) => u.fullName.toLowerCase() === wanted && u.isActive);
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

  async byEmail(email: string): Promise<ChatUser | undefined> {
    const wanted = email.toLowerCase();
    return (await this.users()).find((u) => u.email.toLowerCase() === wanted);
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

  /** Forgets everything, e.g. after a `realm_user` or `stream` event. */
  invalidate(): void {
    // The registration's users are outdated too: the next list is asked for.
    this.#listedFrom = this.#registration();
    this.#list = undefined;
    this.#channels = undefined;
    this.#fresh.clear();
  }

  #refreshList(): Promise<ChatUser[]> {
    if (this.#list && this.#now() - this.#list.at >= this.#roleTtlMs) this.#list = undefined;
    return this.users();
  }
}
