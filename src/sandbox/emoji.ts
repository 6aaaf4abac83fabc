// Emoji names and codes, as the server checks them for reactions and statuses: Unicode data from unicode-emoji-json, realm emoji, extra emoji.
import { createRequire } from "node:module";
import type { EmojiReactionType } from "../api/common.js";
import { badRequest } from "./errors.js";

interface UnicodeData {
  byName: Map<string, string>;
  byCode: Map<string, string>;
}

interface EmojiEntry {
  slug: string;
}

let unicode: UnicodeData | undefined;

/** Emoji code of a Unicode sequence: dash-separated lowercase hex code points, variation selectors dropped. */
export function unicodeCode(emoji: string): string {
  return [...emoji]
    .map((c) => c.codePointAt(0)!)
    .filter((cp) => cp !== 0xfe0f)
    .map((cp) => cp.toString(16))
    .join("-");
}

/** Names the chat server's users know by heart, as aliases of the Unicode data's names. */
const ALIASES: Readonly<Record<string, string>> = {
  "+1": "thumbs_up",
  "-1": "thumbs_down",
  heart: "red_heart",
  tada: "party_popper",
  smile: "grinning_face_with_smiling_eyes",
  check: "check_mark_button",
  car: "automobile",
  coffee: "hot_beverage",
};

/** Loads the Unicode emoji table the first time an emoji is looked up. */
function unicodeData(): UnicodeData {
  if (!unicode) {
    const require = createRequire(import.meta.url);
    const table = require("unicode-emoji-json/data-by-emoji.json") as Record<string, EmojiEntry>;
    const byName = new Map<string, string>();
    const byCode = new Map<string, string>();
    for (const [emoji, entry] of Object.entries(table)) {
      const code = unicodeCode(emoji);
      byName.set(entry.slug, code);
      if (!byCode.has(code)) byCode.set(code, entry.slug);
    }
    for (const [alias, slug] of Object.entries(ALIASES)) {
      const code = byName.get(slug);
      if (code) byName.set(alias, code);
    }
    unicode = { byName, byCode };
  }
  return unicode;
}

/** The code of a Unicode emoji name (`car` to `1f697`), or undefined. */
export const unicodeCodeOfName = (name: string): string | undefined =>
  unicodeData().byName.get(name);

/** Whether `code` is some Unicode emoji's code. */
export const isUnicodeEmojiCode = (code: string): boolean => unicodeData().byCode.has(code);

/** Built-in emoji that are not Unicode (`zulip_extra_emoji` on real servers); the code is the name. */
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
  } else if (type === "service_extra_emoji") {
    if (!SERVICE_EXTRA_EMOJI.includes(code)) throw badRequest("Invalid emoji code.");
    if (name !== code) throw badRequest("Invalid emoji name.");
  } else {
    if (!isUnicodeEmojiCode(code)) throw badRequest("Invalid emoji code.");
    if (unicodeCodeOfName(name) !== code) throw badRequest("Invalid emoji name.");
  }
  return { emojiName: name, emojiCode: code, reactionType: type };
}
