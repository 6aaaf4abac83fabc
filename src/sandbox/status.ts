// User statuses in the sandbox: stored statuses, the update rules (60 characters, emoji checks) and events.
import type { EmojiReactionType } from "../api/common.js";
import { badRequest } from "./errors.js";
import type { Realm } from "./realm.js";

export const STATUS_TEXT_LIMIT = 60;

export interface UserStatus {
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: EmojiReactionType | "";
}

/** A custom emoji uploaded to the realm; its `emoji_code` is its ID. */
export interface RealmEmoji {
  id: string;
  name: string;
  deactivated: boolean;
}

/** How status validation looks emoji up; the sandbox's emoji data backs it. */
export interface EmojiLookup {
  /** The code of a Unicode emoji name, e.g. `car` to `1f697`. */
  unicodeCode(name: string): string | undefined;
  /** Whether a code is some Unicode emoji's code. */
  isUnicodeCode(code: string): boolean;
  /** The realm's custom emoji, by ID. */
  realmEmoji(id: string): RealmEmoji | undefined;
  realmEmojiByName(name: string): RealmEmoji | undefined;
  /** Names of the service's extra emoji; their code is their name. */
  extraEmoji: readonly string[];
}

// TODO(lead, after merging issue 3): back unicodeCode/isUnicodeCode with src/sandbox/emoji.ts
// (the full emoji data) instead of this small table; realm emoji likewise if emoji.ts keeps them.
const SMALL_UNICODE_TABLE: Readonly<Record<string, string>> = {
  car: "1f697",
  smile: "1f604",
  thumbs_up: "1f44d",
  "+1": "1f44d",
  palm_tree: "1f334",
  house: "1f3e0",
  coffee: "2615",
  calendar: "1f4c6",
  octopus: "1f419",
};

/** The custom emoji every sandbox realm has. */
export const SEED_REALM_EMOJI: readonly RealmEmoji[] = [
  { id: "1", name: "green_tick", deactivated: false },
  { id: "2", name: "old_logo", deactivated: true },
];

/** A Unicode emoji code: dash-separated hex codepoints. */
const UNICODE_CODE = /^[0-9a-f]{4,6}(-[0-9a-f]{4,6})*$/;

/**
 * An emoji lookup over a name-to-code function. Without `isUnicodeCode`, any well-formed
 * codepoint sequence counts as a code; custom emoji default to the seeded ones.
 */
export function createEmojiLookup(
  unicodeCode: (name: string) => string | undefined,
  options: { isUnicodeCode?: (code: string) => boolean; realmEmoji?: readonly RealmEmoji[] } = {},
): EmojiLookup {
  const realmEmoji = options.realmEmoji ?? SEED_REALM_EMOJI;
  return {
    unicodeCode,
    isUnicodeCode: options.isUnicodeCode ?? ((code) => UNICODE_CODE.test(code)),
    realmEmoji: (id) => realmEmoji.find((e) => e.id === id),
    realmEmojiByName: (name) => realmEmoji.find((e) => e.name === name && !e.deactivated),
    extraEmoji: ["zulip"],
  };
}

/** The lookup the sandbox uses until the full emoji data is wired in (see the TODO above). */
export const defaultEmojiLookup: EmojiLookup = createEmojiLookup((name) =>
  Object.hasOwn(SMALL_UNICODE_TABLE, name) ? SMALL_UNICODE_TABLE[name] : undefined,
);

/**
 * Resolves and checks a status emoji: with only a name, its code and type are looked up; with
 * a code, the code must fit the type's namespace and the name must match it.
 */
export function resolveEmoji(
  lookup: EmojiLookup,
  name: string,
  code: string | undefined,
  type: EmojiReactionType | undefined,
): { emoji_name: string; emoji_code: string; reaction_type: EmojiReactionType } {
  if (code === undefined) {
    const custom = lookup.realmEmojiByName(name);
    const unicode = lookup.unicodeCode(name);
    if (custom) code = custom.id;
    else if (unicode !== undefined) code = unicode;
    else if (lookup.extraEmoji.includes(name)) code = name;
    else throw badRequest(`Emoji '${name}' does not exist`);
    type ??= custom
      ? "realm_emoji"
      : unicode !== undefined
        ? "unicode_emoji"
        : "service_extra_emoji";
  }
  type ??= "unicode_emoji";
  if (type === "realm_emoji") {
    const custom = lookup.realmEmoji(code);
    if (!custom) throw badRequest("Invalid custom emoji.");
    if (custom.name !== name) throw badRequest("Invalid custom emoji name.");
    if (custom.deactivated) throw badRequest("This custom emoji has been deactivated.");
  } else if (type === "service_extra_emoji") {
    if (!lookup.extraEmoji.includes(code)) throw badRequest("Invalid emoji code.");
    if (name !== code) throw badRequest("Invalid emoji name.");
  } else {
    if (!lookup.isUnicodeCode(code)) throw badRequest("Invalid emoji code.");
    if (lookup.unicodeCode(name) !== code) throw badRequest("Invalid emoji name.");
  }
  return { emoji_name: name, emoji_code: code, reaction_type: type };
}

const statusesByRealm = new WeakMap<Realm, Map<number, UserStatus>>();

/** Every user's current status, by user ID; a user without one is absent. */
export function userStatuses(realm: Realm): Map<number, UserStatus> {
  let statuses = statusesByRealm.get(realm);
  if (!statuses) {
    statuses = new Map();
    statusesByRealm.set(realm, statuses);
  }
  return statuses;
}

export interface StatusUpdate {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: EmojiReactionType;
}

/**
 * Checks an update and applies it; returns the changed fields (the `user_status` event body).
 * Empty `status_text` clears the text, empty `emoji_name` the emoji; a status with neither is gone.
 */
export function updateStatus(
  realm: Realm,
  userId: number,
  update: StatusUpdate,
  lookup: EmojiLookup = defaultEmojiLookup,
): Partial<UserStatus> {
  const { status_text, emoji_name, emoji_code, reaction_type } = update;
  if (
    status_text === undefined &&
    emoji_name === undefined &&
    emoji_code === undefined &&
    reaction_type === undefined
  )
    throw badRequest("Client did not pass any new values.");
  if (status_text !== undefined && [...status_text].length > STATUS_TEXT_LIMIT)
    throw badRequest(`status_text is too long (limit: ${STATUS_TEXT_LIMIT} characters)`);
  if (emoji_name === undefined && (emoji_code !== undefined || reaction_type !== undefined))
    throw badRequest(
      "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
    );

  const changed: Partial<UserStatus> = {};
  if (status_text !== undefined) changed.status_text = status_text.trim();
  if (emoji_name !== undefined) {
    Object.assign(
      changed,
      emoji_name === ""
        ? { emoji_name: "", emoji_code: "", reaction_type: "" }
        : resolveEmoji(lookup, emoji_name, emoji_code, reaction_type),
    );
  }
  const statuses = userStatuses(realm);
  const current = statuses.get(userId) ?? {
    status_text: "",
    emoji_name: "",
    emoji_code: "",
    reaction_type: "",
  };
  const next = { ...current, ...changed };
  if (next.status_text === "" && next.emoji_name === "") statuses.delete(userId);
  else statuses.set(userId, next);
  return changed;
}
