// A card as a message: Markdown complete by itself (choices as text and typeable commands), a zform `choices` widget on top, tokens and expiry.
import { code, escapeText } from "../markdown/escape.js";
import { randomBytes } from "node:crypto";
import { parseDuration } from "../context/time.js";
import type { CardChoice, CardSpec } from "../model/cards.js";

/** Token letters: lower case and digits without look-alikes (no 0/o, 1/l/i). */
const TOKEN_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
export const TOKEN_LENGTH = 6;
/** What a token looks like (a click's first word after the action). */
export const TOKEN_PATTERN = /^[a-hjkmnp-z2-9]{6}$/;

/** A fresh short token (6 characters, about 30 bits): names a card in clicks. */
export function newToken(): string {
  const bytes = randomBytes(TOKEN_LENGTH);
  let token = "";
  for (const byte of bytes) token += TOKEN_ALPHABET[byte % TOKEN_ALPHABET.length];
  return token;
}

/** Milliseconds of `expires` (a number of ms or a duration such as `1d`); throws a clear error. */
export function expiryMs(expires: number | string, what: string): number {
  const ms = typeof expires === "number" ? expires : parseDuration(expires);
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0)
    throw new RangeError(
      `${what}: expires ${JSON.stringify(expires)} is not a positive duration (milliseconds, or text such as "1d" or "90 minutes")`,
    );
  return ms;
}

/** Arguments text with its spaces made canonical, to compare a click with a choice. */
export const canonicalArgs = (text: string | undefined): string =>
  (text ?? "").trim().split(/\s+/).filter(Boolean).join(" ");

/** The text a click sends after the mention or prefix: `<action> <token> [args]`. */
export function clickText(choice: CardChoice, token: string): string {
  const args = canonicalArgs(choice.args);
  return args === "" ? `${choice.action} ${token}` : `${choice.action} ${token} ${args}`;
}

/** How a typed click is addressed: the prefix, or a mention when the bot has no prefix. */
export interface Addressing {
  prefix: string;
  /** The bot's silent mention (`@_**Deploy Bot**`), for a bot without a prefix. */
  mention: string;
}

/** The command to type, as Markdown: in a code span, after the bot's (silent) mention without a prefix. */
const typed = (text: string, how: Addressing): string =>
  how.prefix === ""
    ? `${how.mention} ${code(text, Infinity)}`
    : code(`${how.prefix}${text}`, Infinity);

/** What a card shows when it is closed: the choice taken, or why it closed. */
export interface CardState {
  /** `Approved by Olivia`: shown under the heading, choices no longer offered. */
  closedNote?: string;
  /** Epoch milliseconds until which the choices are open. */
  expiresAt?: number;
}

/**
 * The card's Markdown: the heading, the body, then each choice with the command that makes it
 * (and its chip), so a client without zforms (mobile, email, the terminal) shows all of it.
 */
export function cardContent(
  spec: Pick<CardSpec, "heading" | "body" | "choices">,
  token: string,
  how: Addressing,
  state: CardState = {},
): string {
  const lines = [`**${escapeText(oneLine(spec.heading))}**`];
  if (spec.body !== undefined && spec.body.trim() !== "") lines.push(spec.body.trim());
  if (state.closedNote !== undefined) {
    lines.push("", state.closedNote);
    return lines.join("\n");
  }
  if (spec.choices.length > 0) {
    lines.push("", "Click a button, or type:");
    for (const choice of spec.choices) {
      const chip = choice.emoji ? ` (or react :${choice.emoji}:)` : "";
      lines.push(
        `- **${escapeText(oneLine(choice.label))}**: ${typed(clickText(choice, token), how)}${chip}`,
      );
    }
  }
  if (state.expiresAt !== undefined)
    lines.push("", `Open until <time:${new Date(state.expiresAt).toISOString()}>.`);
  return lines.join("\n");
}

/**
 * The zform the server accepts as `widget_content` (check_widget_content: `type: "choices"`, a
 * string `heading`, each choice's `short_name`, `long_name`, `reply` strings) and the web client
 * draws as buttons; a click sends `reply` as a message from the clicker (in a channel, after a
 * mention of the card's sender).
 */
export function cardWidget(
  spec: Pick<CardSpec, "heading" | "choices">,
  token: string,
): Record<string, unknown> {
  return {
    widget_type: "zform",
    extra_data: {
      type: "choices",
      heading: oneLine(spec.heading),
      choices: spec.choices.map((choice) => ({
        type: "multiple_choice",
        short_name: oneLine(choice.label),
        long_name: clickText(choice, token),
        reply: clickText(choice, token),
      })),
    },
  };
}

/** Checks a card's choices: action names one word, labels and emoji given; throws naming the fault. */
export function checkChoices(choices: readonly CardChoice[], what: string): void {
  const emoji = new Set<string>();
  for (const [i, choice] of choices.entries()) {
    if (!/^\S+$/.test(choice.action))
      throw new TypeError(`${what}: choices[${i}].action "${choice.action}" must be one word`);
    if (oneLine(choice.label) === "") throw new TypeError(`${what}: choices[${i}].label is empty`);
    if (choice.emoji !== undefined) {
      if (!/^[a-z0-9_+-]+$/.test(choice.emoji))
        throw new TypeError(`${what}: choices[${i}].emoji "${choice.emoji}" is not an emoji name`);
      if (emoji.has(choice.emoji))
        throw new TypeError(`${what}: two choices react with :${choice.emoji}:`);
      emoji.add(choice.emoji);
    }
  }
}

/** A line break in a heading or label would break the card's Markdown. */
const oneLine = (text: string): string => text.replace(/\s*[\r\n]+\s*/g, " ").trim();
