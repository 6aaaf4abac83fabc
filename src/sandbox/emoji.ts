// Emoji names and codes, as the server checks them for reactions, statuses and `:name:` in messages: Zulip's own name table, realm emoji, extra emoji.
import type { EmojiReactionType } from "../api/common.js";
import { ZULIP_EMOJI_NAMES } from "./emojiNames.generated.js";
import { badRequest } from "./errors.js";

interface UnicodeData {
  /** `name_to_codepoint`: every canonical name and alias. */
  byName: Map<string, string>;
  /** `codepoint_to_name`: the canonical name of each code. */
  byCode: Map<string, string>;
}

let unicode: UnicodeData | undefined;

/** Emoji code of a Unicode sequence: dash-separated lowercase hex code points, variation selectors dropped. */
export function unicodeCode(emoji: string): string {
  return [...emoji]
    .map((c) => c.codePointAt(0)!)
    .filter((cp) => cp !== 0xfe0f)
    .map((cp) => cp.toString(16).padStart(4, "0"))
    .join("-");
}

/** Builds the server's two maps from its name table, the first time an emoji is looked up. */
function unicodeData(): UnicodeData {
  if (!unicode) {
    const byName = new Map<string, string>();
    const byCode = new Map<string, string>();
    for (const [code, canonical, ...aliases] of ZULIP_EMOJI_NAMES) {
      byCode.set(code!, canonical!);
      for (const name of [canonical!, ...aliases]) byName.set(name, code!);
    }
    unicode = { byName, byCode };
  }
  return unicode;
}

/** The code of a Unicode emoji name as the server knows it (`wave` to `1f44b`), or undefined. */
export const unicodeCodeOfName = (name: string): string | undefined =>
  unicodeData().byName.get(name);

/** Whether `code` is some Unicode emoji's code. */
export const isUnicodeEmojiCode = (code: string): boolean => unicodeData().byCode.has(code);

/** The canonical name of a Unicode emoji code (`1f44b` to `wave`), or undefined. */
export const unicodeNameOfCode = (code: string): string | undefined =>
  unicodeData().byCode.get(code);

/**
 * Built-in emoji that are not Unicode; the code is the name. The spec calls their type
 * `service_extra_emoji`, the real server `zulip_extra_emoji`: both are accepted.
 */
export const SERVICE_EXTRA_EMOJI: readonly string[] = ["zulip"];

/** A custom emoji uploaded to the realm; its `emoji_code` is its ID. */
export interface RealmEmoji {
  id: string;
  name: string;
  deactivated: boolean;
}

/** The custom emoji every sandbox realm starts with. */
export const SEED_REALM_EMOJI: readonly RealmEmoji[] = [
  { id: "1", name: "sandbox_logo", deactivated: false },
  { id: "2", name: "old_logo", deactivated: true },
  { id: "3", name: "green_tick", deactivated: false },
];

/** A realm's custom emoji by ID, from the seeded list. */
export const seedRealmEmoji = (): Map<string, RealmEmoji> =>
  new Map(SEED_REALM_EMOJI.map((e) => [e.id, { ...e }]));

export interface ResolvedEmoji {
  emojiName: string;
  emojiCode: string;
  reactionType: EmojiReactionType;
}

/**
 * Resolves an emoji as the server does for reactions and statuses. With only a name, the code
 * and type are looked up (active custom emoji first, then Unicode, then the extra emoji); with a
 * code, the code must exist in the type's namespace (default `unicode_emoji`) and the name must
 * be that code's name. Every refusal is `BAD_REQUEST` with the server's message.
 *
 * @example
 * resolveEmoji(realm.realmEmoji, "car"); // { emojiName: "car", emojiCode: "1f697", reactionType: "unicode_emoji" }
 */
export function resolveEmoji(
  realmEmoji: ReadonlyMap<string, RealmEmoji>,
  name: string,
  code?: string,
  type?: EmojiReactionType,
): ResolvedEmoji {
  if (code === undefined) {
    const custom = [...realmEmoji.values()].find((e) => e.name === name && !e.deactivated);
    const unicodeFound = unicodeCodeOfName(name);
    if (custom) code = custom.id;
    else if (unicodeFound !== undefined) code = unicodeFound;
    else if (SERVICE_EXTRA_EMOJI.includes(name)) code = name;
    else throw badRequest(`Emoji '${name}' does not exist`);
    type ??= custom
      ? "realm_emoji"
      : unicodeFound !== undefined
        ? "unicode_emoji"
        : "service_extra_emoji";
  }
  type ??= "unicode_emoji";
  if (type === "realm_emoji") {
    const custom = realmEmoji.get(code);
    if (!custom) throw badRequest("Invalid custom emoji.");
    if (custom.name !== name) throw badRequest("Invalid custom emoji name.");
    if (custom.deactivated) throw badRequest("This custom emoji has been deactivated.");
  } else if (type === "service_extra_emoji" || type === "zulip_extra_emoji") {
    if (!SERVICE_EXTRA_EMOJI.includes(code)) throw badRequest("Invalid emoji code.");
    if (name !== code) throw badRequest("Invalid emoji name.");
  } else {
    if (!isUnicodeEmojiCode(code)) throw badRequest("Invalid emoji code.");
    if (unicodeCodeOfName(name) !== code) throw badRequest("Invalid emoji name.");
  }
  return { emojiName: name, emojiCode: code, reactionType: type };
}
