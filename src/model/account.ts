// The bot's account (who it is on the server, with its mention strings) and how a message addressed it.

export interface BotIdentity {
  userId: number;
  email: string;
  fullName: string;
}

/** The bot's account with its ready mention strings, as `ctx.me` and `bot.me` give it. */
export interface BotAccount extends BotIdentity {
  /** `@**Name**`: mentions (and notifies) the bot. */
  mention: string;
  /** `@_**Name**`: names the bot without notifying it. */
  silentMention: string;
}

/** The account with its mention strings. */
export function botAccount(identity: BotIdentity): BotAccount {
  return {
    ...identity,
    mention: `@**${identity.fullName}**`,
    silentMention: `@_**${identity.fullName}**`,
  };
}

export interface Addressing {
  /** How the message reached the bot; null when it was not addressed to it. */
  via: "direct" | "mention" | "prefix" | null;
  /** The message starts with a mention of the bot. */
  isMention: boolean;
  /** The text after the mention and/or prefix, trimmed. */
  text: string;
}
