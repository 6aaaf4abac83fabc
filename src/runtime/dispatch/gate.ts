// The gate: which messages are addressed to the bot (DMs, a leading mention, the prefix) and what remains.

export interface BotIdentity {
  userId: number;
  email: string;
  fullName: string;
}

export interface Addressing {
  /** How the message reached the bot; null when it was not addressed to it. */
  via: "direct" | "mention" | "prefix" | null;
  /** The message starts with a mention of the bot. */
  isMention: boolean;
  /** The text after the mention and/or prefix, trimmed. */
  text: string;
}

/**
 * If `content` starts with a mention of the bot (`@**Bot Name**` or `@**Bot Name|id**`),
 * returns the rest of the text; otherwise undefined.
 */
export function stripLeadingMention(content: string, bot: BotIdentity): string | undefined {
  const match = /^\s*@\*\*([^*|]+?)(?:\|(\d+))?\*\*(.*)$/s.exec(content);
  if (!match) return undefined;
  const [, name, id, rest] = match;
  const isBot =
    id !== undefined
      ? Number(id) === bot.userId
      : name!.trim().toLowerCase() === bot.fullName.toLowerCase();
  return isBot ? rest!.replace(/^[\s:,]+/, "").trimEnd() : undefined;
}

/** Decides whether a message is addressed to the bot and extracts the text meant for it. */
export function address(
  content: string,
  options: { isDirect: boolean; bot: BotIdentity; prefix: string },
): Addressing {
  const afterMention = stripLeadingMention(content, options.bot);
  const isMention = afterMention !== undefined;
  let text = (afterMention ?? content).trim();
  const hasPrefix = options.prefix !== "" && text.startsWith(options.prefix);
  if (hasPrefix) text = text.slice(options.prefix.length).trimStart();
  const via = options.isDirect ? "direct" : isMention ? "mention" : hasPrefix ? "prefix" : null;
  return { via, isMention, text };
}
