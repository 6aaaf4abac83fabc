// Emoji names and codes for reactions: Unicode data from unicode-emoji-json, loaded on first use.
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

/** Loads the Unicode emoji table the first time a reaction needs it. */
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
    // Names the chat server's users know by heart, as aliases of the Unicode names.
    const aliases: Record<string, string> = {
      "+1": "thumbs_up",
      "-1": "thumbs_down",
      heart: "red_heart",
      tada: "party_popper",
      smile: "grinning_face_with_smiling_eyes",
      check: "check_mark_button",
    };
    for (const [alias, slug] of Object.entries(aliases)) {
      const code = byName.get(slug);
      if (code) byName.set(alias, code);
    }
    unicode = { byName, byCode };
  }
  return unicode;
}

/** Built-in emoji that are not Unicode (`zulip_extra_emoji` on real servers). */
export const SERVICE_EXTRA_EMOJI: ReadonlyMap<string, string> = new Map([["zulip", "zulip"]]);

export interface ResolvedEmoji {
  emojiName: string;
  emojiCode: string;
  reactionType: EmojiReactionType;
}

/**
 * Resolves a reaction's emoji as the server does: by name, or by `emoji_code` within `reaction_type`'s
 * namespace. Unknown names and codes give `BAD_REQUEST`.
 */
export function resolveEmoji(
  customEmoji: ReadonlyMap<string, string>,
  name: string,
  code?: string,
  type?: EmojiReactionType,
): ResolvedEmoji {
  const byNameCustom = [...customEmoji].find(([, n]) => n === name);
  const reactionType: EmojiReactionType =
    type ??
    (code === undefined && byNameCustom
      ? "realm_emoji"
      : SERVICE_EXTRA_EMOJI.has(name) && code === undefined
        ? "service_extra_emoji"
        : "unicode_emoji");
  if (reactionType === "realm_emoji") {
    const id = code ?? byNameCustom?.[0];
    if (id === undefined || !customEmoji.has(id)) throw badRequest(`Invalid custom emoji.`);
    return { emojiName: name, emojiCode: id, reactionType };
  }
  if (reactionType === "service_extra_emoji") {
    const extra = SERVICE_EXTRA_EMOJI.get(name);
    if (!extra || (code !== undefined && code !== extra)) throw badRequest("Invalid emoji code.");
    return { emojiName: name, emojiCode: extra, reactionType };
  }
  const data = unicodeData();
  if (code !== undefined) {
    if (!data.byCode.has(code)) throw badRequest("Invalid emoji code.");
    return { emojiName: name, emojiCode: code, reactionType };
  }
  const found = data.byName.get(name);
  if (!found) throw badRequest(`Emoji '${name}' does not exist`);
  return { emojiName: name, emojiCode: found, reactionType };
}
