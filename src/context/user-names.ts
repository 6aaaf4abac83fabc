// Who is called what: full names to user IDs, read once from GET /users when a mention without an ID needs it, then kept by events.
import { z } from "zod";
import type { ApiClient } from "../client/client.js";
import { endpoint } from "../api/endpoint.js";

/**
 * GET /users read for names only: `members` is checked to be a list and each element is read by
 * hand for `user_id` and `full_name` (a tolerant reader), instead of zod copying every field of
 * every user of a large organization into a second list that is thrown away at once.
 */
const listForNames = endpoint({
  method: "GET",
  path: "/users",
  params: z.object({}),
  response: z.looseObject({ members: z.array(z.unknown()) }),
});

/** A name's key (see `keyOf`) → the one user ID, or the IDs of users whose names share it. */
type NameMap = Map<number, number | number[]>;

/**
 * A full name's key: an FNV-1a hash of it trimmed and lowercased. A number instead of the
 * name itself keeps the map at about 15 bytes a user (50,000 names of some 15 characters took
 * 3.3 MiB as strings, the rest of the bot's heap being 11). Two names with one key only make both
 * users candidates: the directory checks each candidate's name against the mention.
 */
function keyOf(fullName: string): number {
  const name = fullName.trim().toLowerCase();
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  // 30 bits: a small integer to V8, stored in the map without a number object of its own.
  return hash & 0x3fffffff;
}

function add(names: NameMap, fullName: string, userId: number): void {
  const key = keyOf(fullName);
  const had = names.get(key);
  if (had === undefined) names.set(key, userId);
  else if (typeof had === "number") {
    if (had !== userId) names.set(key, [had, userId]);
  } else if (!had.includes(userId)) had.push(userId);
}

function remove(names: NameMap, fullName: string, userId: number): void {
  const key = keyOf(fullName);
  const had = names.get(key);
  if (had === userId) names.delete(key);
  else if (Array.isArray(had)) {
    const rest = had.filter((id) => id !== userId);
    if (rest.length === 0) names.delete(key);
    else names.set(key, rest.length === 1 ? rest[0]! : rest);
  }
}

/**
 * The IDs behind each full name, the only thing a mention without an ID (`@**Name**`) cannot be
 * resolved without: the API finds users by ID and by email, not by name. Nothing is read until
 * the first such mention; then one GET /users is read for names alone (two numbers per user are
 * kept, not the users nor their names), and `realm_user` events keep the map current from there, so it is
 * never read again while the same event queue lasts. Whether a user found here is active, and
 * everything else about them, the directory asks by ID.
 */
export class UserNames {
  readonly #api: ApiClient;
  #names: Promise<NameMap> | undefined;
  /** Renames and additions seen while the list was being read, applied to it when it lands. */
  #pending: { fullName: string; userId: number; was?: string }[] = [];

  constructor(api: ApiClient) {
    this.#api = api;
  }

  /** Whether the names have been read (or are being read). */
  get loaded(): boolean {
    return this.#names !== undefined;
  }

  /** The IDs of the users called `fullName` (case-insensitively), reading the names on first use. */
  async idsOf(fullName: string): Promise<number[]> {
    const found = (await this.#load()).get(keyOf(fullName));
    return found === undefined ? [] : typeof found === "number" ? [found] : [...found];
  }

  /** A user joined (`realm_user` add) or was renamed (update with `full_name`; `was` the old name if known). */
  named(userId: number, fullName: string, was?: string): void {
    if (!this.#names) return;
    this.#pending.push({ userId, fullName, was });
    void this.#names.then((names) => this.#apply(names));
  }

  /** Forgets the names (a new event queue: renames may have been missed); read again when needed. */
  forget(): void {
    this.#names = undefined;
    this.#pending = [];
  }

  #apply(names: NameMap): void {
    for (const { userId, fullName, was } of this.#pending) {
      // An old name not known here stays behind: harmless, as the directory checks the name of
      // each user it finds against the mention (a search for it would cost the whole map).
      if (was !== undefined) remove(names, was, userId);
      add(names, fullName, userId);
    }
    this.#pending = [];
  }

  #load(): Promise<NameMap> {
    if (this.#names) return this.#names;
    const names = this.#api.call(listForNames, {}).then((r) => {
      const map: NameMap = new Map();
      for (const member of r.members) {
        const m = member as { user_id?: unknown; full_name?: unknown } | null;
        if (m && Number.isSafeInteger(m.user_id) && typeof m.full_name === "string")
          add(map, m.full_name, m.user_id as number);
      }
      this.#apply(map);
      return map;
    });
    names.catch(() => {
      if (this.#names === names) this.#names = undefined;
    });
    this.#names = names;
    return names;
  }
}
