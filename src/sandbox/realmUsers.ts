// The realm's users by ID, with indexes by email and by full name that stay right however a user is changed.
import type { SandboxUser } from "./model.js";

/** Lowercased key → the IDs having it, ascending (the order users were added in). */
type Index = Map<string, number[]>;

function enter(index: Index, key: string, id: number): void {
  const ids = index.get(key);
  if (!ids) index.set(key, [id]);
  else if (!ids.includes(id)) {
    ids.push(id);
    ids.sort((a, b) => a - b);
  }
}

function leave(index: Index, key: string, id: number): void {
  const ids = index.get(key);
  if (!ids) return;
  const at = ids.indexOf(id);
  if (at !== -1) ids.splice(at, 1);
  if (ids.length === 0) index.delete(key);
}

/**
 * `Map<userId, SandboxUser>` that also finds users by email and by full name (case-insensitively)
 * without a scan: every user put in has its `email` and `fullName` turned into accessors that move
 * the user's index entries when a route, a test or the control API assigns them, so renames,
 * email changes and replacing or deleting users all keep the indexes right. Deactivation needs no
 * index change: lookups that want active users only check `isActive` on the few they find.
 */
export class RealmUsers extends Map<number, SandboxUser> {
  readonly #byEmail: Index = new Map();
  readonly #byName: Index = new Map();

  override set(id: number, user: SandboxUser): this {
    const old = super.get(id);
    if (old !== undefined) this.#unindex(old);
    super.set(id, user);
    this.#watch(user);
    return this;
  }

  override delete(id: number): boolean {
    const old = super.get(id);
    if (old !== undefined) this.#unindex(old);
    return super.delete(id);
  }

  override clear(): void {
    super.clear();
    this.#byEmail.clear();
    this.#byName.clear();
  }

  /** The users whose email (the real one, as stored) is `email`, case-insensitively, by ID. */
  withEmail(email: string): SandboxUser[] {
    return this.#users(this.#byEmail, email);
  }

  /** The users whose full name is `name`, case-insensitively, by ID. */
  named(name: string): SandboxUser[] {
    return this.#users(this.#byName, name);
  }

  #users(index: Index, key: string): SandboxUser[] {
    const ids = index.get(key.toLowerCase());
    if (!ids) return [];
    const found: SandboxUser[] = [];
    for (const id of ids) {
      const user = super.get(id);
      if (user) found.push(user);
    }
    return found;
  }

  #unindex(user: SandboxUser): void {
    leave(this.#byEmail, user.email.toLowerCase(), user.userId);
    leave(this.#byName, user.fullName.toLowerCase(), user.userId);
  }

  /** Indexes `user` and makes its `email` and `fullName` re-index it when assigned. */
  #watch(user: SandboxUser): void {
    const id = user.userId;
    let email = user.email;
    let fullName = user.fullName;
    enter(this.#byEmail, email.toLowerCase(), id);
    enter(this.#byName, fullName.toLowerCase(), id);
    const indexed = () => super.get(id) === user;
    Object.defineProperty(user, "email", {
      configurable: true,
      enumerable: true,
      get: () => email,
      set: (value: string) => {
        if (indexed()) {
          leave(this.#byEmail, email.toLowerCase(), id);
          enter(this.#byEmail, value.toLowerCase(), id);
        }
        email = value;
      },
    });
    Object.defineProperty(user, "fullName", {
      configurable: true,
      enumerable: true,
      get: () => fullName,
      set: (value: string) => {
        if (indexed()) {
          leave(this.#byName, fullName.toLowerCase(), id);
          enter(this.#byName, value.toLowerCase(), id);
        }
        fullName = value;
      },
    });
  }
}
