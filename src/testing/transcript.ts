// What a failing harness assertion shows: the recent conversation, who said what where, and logged errors.
import type { Realm } from "../sandbox/realm.js";
import { observeMessage, placeOf, type ObservedMessage } from "./observe.js";

/** A reply expectation: exact text, or a pattern the content must match. */
export type Expectation = string | RegExp;

/** Whether `content` meets the expectation (a string must equal it, a RegExp must match). */
export function meets(content: string, expected: Expectation): boolean {
  if (typeof expected === "string") return content === expected;
  expected.lastIndex = 0;
  return expected.test(content);
}

/** `"pong"` or `/po+ng/`, for messages. */
export const describeExpectation = (expected: Expectation): string =>
  typeof expected === "string" ? JSON.stringify(expected) : String(expected);

const indent = (text: string, by: string): string => text.split("\n").join(`\n${by}`);

/** One line per message: `[#general > test] Mia Member: !ping`; the bot's lines marked with `>`. */
export function formatMessages(realm: Realm, messages: ObservedMessage[], botId: number): string {
  if (messages.length === 0) return "  (no messages)";
  return messages
    .map((m) => {
      const mark = m.senderId === botId ? ">" : " ";
      const line = `${mark} [${placeOf(realm, m)}] ${m.senderName}: `;
      return `${line}${indent(m.content, " ".repeat(line.length))}`;
    })
    .join("\n");
}

/** The last `count` messages of the realm, oldest first. */
export function recentMessages(realm: Realm, count = 12): ObservedMessage[] {
  return realm.messages.slice(-count).map((m) => observeMessage(realm, m));
}

/** A failure message: what went wrong, the conversation, the errors the bot logged. */
export function failure(
  problem: string,
  context: { realm: Realm; botId: number; errors: readonly string[] },
): Error {
  const parts = [
    problem,
    "",
    "Conversation (newest last; the bot's messages marked >):",
    formatMessages(context.realm, recentMessages(context.realm), context.botId),
  ];
  if (context.errors.length > 0) {
    parts.push("", "The bot logged:");
    for (const e of context.errors) parts.push(`  ${e}`);
  }
  const error = new Error(parts.join("\n"));
  error.name = "TestBotAssertionError";
  return error;
}
