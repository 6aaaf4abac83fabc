// Reading a reminder request: who or where, when (the longest run of words that is a time), what.
import { code, looksLikeTime, readTime, tokenize, type TimeReference } from "topicbot";

/** Who gets the reminder: the sender, another user (by mention), or a channel topic. */
export type ReminderTarget =
  | { kind: "me" }
  | { kind: "user"; name: string; userId?: number }
  | { kind: "topic"; channel: string; topic: string };

export interface ReminderRequest {
  target: ReminderTarget;
  at: Date;
  /** The words that said when, as typed. */
  when: string;
  what: string;
}

const USER = /^@_?\*\*([^*|]+?)(?:\|(\d+))?\*\*$/;
const TOPIC = /^#(?:\*\*([^*>]+)>([^*]+)\*\*|([^\s>]+)>(\S+))$/;

/** The target a first word names, or undefined. */
export function readTarget(word: string): ReminderTarget | undefined {
  if (word.toLowerCase() === "me") return { kind: "me" };
  const user = USER.exec(word);
  if (user)
    return {
      kind: "user",
      name: user[1]!,
      ...(user[2] !== undefined && { userId: Number(user[2]) }),
    };
  const topic = TOPIC.exec(word);
  if (topic) return { kind: "topic", channel: topic[1] ?? topic[3]!, topic: topic[2] ?? topic[4]! };
  return undefined;
}

/** The longest a reminder may wait: a year. Beyond that it is a typo, not a plan. */
export const MAX_AHEAD = "1y";

/** The most characters a reminder's text may have. */
export const MAX_WHAT = 2_000;

/**
 * Parses `me in 2 hours to stretch`, `@**Mia Member** tomorrow 9:00 call Bob`,
 * `#**ops>deploys** friday 5pm freeze`. The time is read as `arg.time({ future: true,
 * maxAhead: "1y" })` reads it. Throws an Error whose message is meant for the chat.
 *
 * @example
 * parseReminder("me in 2 hours to stretch", { now: Date.now(), timeZone: "UTC" }).what; // "stretch"
 */
export function parseReminder(text: string, options: TimeReference): ReminderRequest {
  const tokens = tokenize(text);
  const first = tokens[0];
  const target = first && readTarget(first.value);
  if (!target)
    throw new Error(
      first
        ? `I can remind \`me\`, a user (\`@**Name**\`) or a topic (\`#**channel>topic**\`), not ${code(first.value)}.`
        : "Tell me whom to remind, when, and what.",
    );
  // The longest run of words after the target that reads as a time.
  const rest = tokens.slice(1);
  for (let n = Math.min(rest.length, 6); n >= 1; n--) {
    const when = text.slice(rest[0]!.start, rest[n - 1]!.end);
    if (!looksLikeTime(when, options)) continue;
    let at: Date;
    try {
      at = readTime(when, options, { future: true, maxAhead: MAX_AHEAD });
    } catch (error) {
      throw new Error(`The time ${(error as Error).message}.`);
    }
    const what = text
      .slice(rest[n - 1]!.end)
      .trim()
      .replace(/^to\s+/i, "");
    if (what === "") throw new Error("What should I remind about? Add it after the time.");
    if ([...what].length > MAX_WHAT)
      throw new Error(`The reminder is ${[...what].length} characters long; at most ${MAX_WHAT}.`);
    return { target, at, when, what };
  }
  throw new Error(
    `I could not read a time after ${code(first!.value)}; try \`in 10 minutes\`, \`tomorrow 9:00\` or \`friday 5pm\`.`,
  );
}
