// Conversation history for models: a topic's or DM's recent messages as user/assistant turns of plain text.
import { createRequire } from "node:module";
import type * as HtmlToText from "html-to-text";
import type { Narrow } from "../api/common.js";
import type { Message } from "../api/messages.js";
import type { ApiClient } from "../client/client.js";
import type { Conversation } from "../model/conversation.js";
import { channelHistoryAccess } from "./visibility.js";

/** One turn: who spoke (the bot is the assistant), their name, and what they said as plain text. */
export interface Turn {
  role: "user" | "assistant";
  name: string;
  userId: number;
  messageId: number;
  /** Epoch seconds. */
  timestamp: number;
  text: string;
}

export interface HistoryOptions {
  /** Messages at most, newest kept. Default 20. */
  limit?: number;
  /** Only messages sent at or after this time (a Date, or epoch milliseconds). */
  since?: Date | number;
  /** Characters at most over all turns; the oldest turns go first. Default 8000. */
  maxChars?: number;
  /** Leave out this message (the one being handled is usually passed separately). */
  before?: number;
}

let htmlToText: typeof HtmlToText | undefined;

/**
 * html-to-text and its HTML parser, loaded the first time history is read: a bot that never
 * reads history never loads them (start-up time, idle memory). Required synchronously (the
 * package ships CommonJS too) so that `plainText` stays sync.
 */
function loadHtmlToText(): typeof HtmlToText {
  htmlToText ??= createRequire(import.meta.url)("html-to-text") as typeof HtmlToText;
  return htmlToText;
}

/** Plain text of rendered message HTML: code kept, links as text, no wrapping. */
export function plainText(html: string): string {
  return loadHtmlToText()
    .convert(html, {
      wordwrap: false,
      selectors: [
        { selector: "a", options: { ignoreHref: true } },
        { selector: "img", format: "skip" },
        { selector: "pre", options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      ],
    })
    .trim();
}

/**
 * Turns messages (any order) into turns, oldest first, bounded by count and characters: the
 * newest are kept, and an oldest turn that would pass `maxChars` is dropped whole.
 */
export function toTurns(
  messages: Message[],
  botUserId: number,
  options: HistoryOptions = {},
): Turn[] {
  const limit = options.limit ?? 20;
  const maxChars = options.maxChars ?? 8_000;
  const since =
    options.since === undefined
      ? undefined
      : (options.since instanceof Date ? options.since.getTime() : options.since) / 1000;
  const sorted = [...messages]
    .filter((m) => since === undefined || m.timestamp >= since)
    .filter((m) => options.before === undefined || m.id < options.before)
    .sort((a, b) => a.id - b.id)
    .slice(-limit);
  const turns: Turn[] = [];
  let chars = 0;
  for (let i = sorted.length - 1; i >= 0; i--) {
    const m = sorted[i]!;
    const text = plainText(m.content);
    if (chars + text.length > maxChars) break;
    chars += text.length;
    turns.push({
      role: m.sender_id === botUserId ? "assistant" : "user",
      name: m.sender_full_name,
      userId: m.sender_id,
      messageId: m.id,
      timestamp: m.timestamp,
      text,
    });
  }
  return turns.reverse();
}

/** The narrow of one conversation (legacy operator names, which every server accepts). */
export function conversationNarrow(conversation: Conversation): Narrow {
  return conversation.type === "channel"
    ? [
        { operator: "stream", operand: conversation.streamId },
        { operator: "topic", operand: conversation.topic },
      ]
    : [{ operator: "dm", operand: conversation.userIds }];
}

/**
 * Fetches a conversation's recent messages (rendered) and returns them as turns.
 *
 * With `reader` (the user the answer is for), a channel's history is what that user could read
 * there: in a private channel with protected history, where the bot cannot tell which messages
 * they received, only their own messages; none in a channel they cannot read. Otherwise a
 * model's answer could repeat to a new member what was said before they joined.
 */
export async function fetchHistory(
  api: ApiClient,
  conversation: Conversation,
  botUserId: number,
  options: HistoryOptions = {},
  reader?: number,
): Promise<Turn[]> {
  const access =
    reader === undefined || conversation.type !== "channel"
      ? "all"
      : await channelHistoryAccess(api, reader, conversation.streamId);
  if (access === "none") return [];
  const limit = options.limit ?? 20;
  const { messages } = await api.messages.list({
    anchor: options.before ?? "newest",
    num_before: limit,
    num_after: 0,
    include_anchor: options.before === undefined,
    narrow: conversationNarrow(conversation),
    apply_markdown: true,
  });
  const readable = access === "all" ? messages : messages.filter((m) => m.sender_id === reader);
  return toTurns(readable, botUserId, options);
}
