// The gate: which messages are addressed to the bot (DMs, a leading mention, the prefix) and what remains.
import type { Addressing, BotIdentity } from "../model/account.js";

/**
 * Which messages reach plugins: `addressed` (DMs, a leading mention, the prefix), `mentions`
 * (zulip_bots' rule: one-to-one DMs and messages that start with a mention; group DMs only when
 * they mention the bot; no prefix) or `all`.
 */
export type RespondTo = "addressed" | "mentions" | "all";

const LEADING_MENTION = /^\s*@(_?)\*\*([^*|]+?)(?:\|(\d+))?\*\*(.*)$/s;

/**
 * Whether the first non-space character is `@`, which every leading mention starts with. Checked
 * before `LEADING_MENTION`: most messages (commands with the prefix, DMs) start otherwise, and
 * the regex costs more than the scan on every message.
 */
export function startsWithAt(content: string): boolean {
  for (let i = 0; i < content.length; i++) {
    const code = content.charCodeAt(i);
    if (code === 64) return true;
    // `\s` of the regex: anything the trim of a JavaScript string removes.
    if (!(code === 32 || (code >= 9 && code <= 13) || (code >= 128 && /\s/.test(content[i]!))))
      return false;
  }
  return false;
}

/**
 * If `content` starts with a mention of the bot (`@**Bot Name**` or `@**Bot Name|id**`; with
 * `silent`, also `@_**Bot Name**`), returns the rest of the text, untrimmed; otherwise undefined.
 */
function afterLeadingMention(
  content: string,
  bot: BotIdentity,
  silent: boolean,
): string | undefined {
  if (!startsWithAt(content)) return undefined;
  const match = LEADING_MENTION.exec(content);
  if (!match) return undefined;
  const [, underscore, name, id, rest] = match;
  if (underscore && !silent) return undefined;
  const isBot =
    id !== undefined
      ? Number(id) === bot.userId
      : name!.trim().toLowerCase() === bot.fullName.toLowerCase();
  return isBot ? rest! : undefined;
}

/**
 * If `content` starts with a mention of the bot (`@**Bot Name**` or `@**Bot Name|id**`),
 * returns the rest of the text; otherwise undefined.
 */
export function stripLeadingMention(content: string, bot: BotIdentity): string | undefined {
  return afterLeadingMention(content, bot, false)
    ?.replace(/^[\s:,]+/, "")
    .trimEnd();
}

export interface AddressOptions {
  isDirect: boolean;
  /** A direct message between the sender and the bot alone (for `respondTo: "mentions"`). */
  oneToOne?: boolean;
  bot: BotIdentity;
  prefix: string;
  /** Default `addressed`. */
  respondTo?: RespondTo;
}

/**
 * Decides whether a message is addressed to the bot and extracts the text meant for it. With
 * `respondTo: "mentions"` the text after a mention is stripped on the left only, as zulip_bots
 * does; otherwise it is trimmed on both sides (the server strips trailing whitespace anyway).
 */
export function address(content: string, options: AddressOptions): Addressing {
  if (options.respondTo === "mentions") return addressLikeZulipBots(content, options);
  const afterMention = stripLeadingMention(content, options.bot);
  const isMention = afterMention !== undefined;
  let text = trimmed(afterMention ?? content);
  const hasPrefix = options.prefix !== "" && text.startsWith(options.prefix);
  if (hasPrefix) text = trimmedStart(text.slice(options.prefix.length));
  const via = options.isDirect ? "direct" : isMention ? "mention" : hasPrefix ? "prefix" : null;
  return { via, isMention, text };
}

/** Whether a character code is plain ASCII text, which no trim removes: a space or control is not. */
const isPlainCharacter = (code: number): boolean => code > 32 && code < 127;

/**
 * `text.trim()`, without the call when there is nothing to trim. A fast path: `address` runs for
 * every message, and most start and end with a plain character (`!add 1 2`).
 */
function trimmed(text: string): string {
  return text.length > 0 &&
    isPlainCharacter(text.charCodeAt(0)) &&
    isPlainCharacter(text.charCodeAt(text.length - 1))
    ? text
    : text.trim();
}

/** `text.trimStart()`, without the call when there is nothing to trim (see `trimmed`). */
function trimmedStart(text: string): string {
  return text.length > 0 && isPlainCharacter(text.charCodeAt(0)) ? text : text.trimStart();
}

/** zulip_bots' rule: a leading (or silent) mention, else a one-to-one DM; no prefix. */
function addressLikeZulipBots(content: string, options: AddressOptions): Addressing {
  const afterMention = afterLeadingMention(content, options.bot, true);
  if (afterMention !== undefined)
    return { via: "mention", isMention: true, text: afterMention.trimStart() };
  const oneToOne = options.isDirect && (options.oneToOne ?? true);
  return { via: oneToOne ? "direct" : null, isMention: false, text: content };
}

/** Whether a direct message is between its sender and one other user only. */
export function isOneToOne(message: { type: string; display_recipient: unknown }): boolean {
  return (
    message.type === "private" &&
    Array.isArray(message.display_recipient) &&
    message.display_recipient.length <= 2
  );
}
