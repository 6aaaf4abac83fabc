// Polls the bot reads: a poll's tally from its submessages (as the web client's poll widget counts), votes parsed from `submessage` events, and a posted poll's `tally()`.
import { widgetDataSchemas, type SubmessageEvent } from "../api/submessages.js";
import type { ApiClient } from "../client/client.js";
import type { PollTally } from "../model/cards.js";
import type { SentMessage } from "./actions.js";
import type { Poll } from "./context-types.js";

/** A submessage as messages carry them (GET /messages) and events announce them. */
export interface SubmessageLike {
  id?: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

/** A vote from a `submessage` event, typed. */
export interface PollVote {
  messageId: number;
  submessageId: number;
  voterId: number;
  /** The option's key (`canned,0` for the poll's first own option). */
  key: string;
  /** 1 adds the vote, -1 takes it back. */
  vote: 1 | -1;
}

const parse = (content: string): unknown => {
  try {
    return JSON.parse(content);
  } catch {
    return undefined;
  }
};

/**
 * The vote a `submessage` event carries, or undefined when it is none (a new option, a question
 * edit, a todo strike, not JSON).
 *
 * @example
 * bot.on("submessage", (event) => {
 *   const vote = pollVoteOf(event);
 *   if (vote?.vote === 1) bot.log.info({ key: vote.key }, "a vote");
 * });
 */
export function pollVoteOf(event: SubmessageEvent): PollVote | undefined {
  if (event.msg_type !== "widget") return undefined;
  const data = widgetDataSchemas().pollData.safeParse(parse(event.content));
  if (!data.success || data.data.type !== "vote") return undefined;
  return {
    messageId: event.message_id,
    submessageId: event.submessage_id,
    voterId: event.sender_id,
    key: data.data.key,
    vote: data.data.vote,
  };
}

interface Option {
  key: string;
  text: string;
  voters: Set<number>;
}

/**
 * A poll's tally from its message's submessages, in order: the first (`widget`, `extra_data`
 * with `question` and `options`, keys `canned,<i>`), then new options (key `<sender>,<idx>`),
 * question edits by the author, and votes (a user's vote on an option is set by 1, removed by -1).
 * Undefined when the submessages are not a poll's.
 */
export function pollTally(submessages: readonly SubmessageLike[]): PollTally | undefined {
  const widgets = submessages.filter((s) => s.msg_type === "widget");
  const first = widgets[0] && (parse(widgets[0].content) as Record<string, unknown> | undefined);
  if (first?.widget_type !== "poll") return undefined;
  const author = widgets[0]!.sender_id;
  const extra = (first.extra_data ?? {}) as { question?: unknown; options?: unknown };
  let question = typeof extra.question === "string" ? extra.question : "";
  const options: Option[] = (Array.isArray(extra.options) ? extra.options : []).map((text, i) => ({
    key: `canned,${i}`,
    text: String(text),
    voters: new Set<number>(),
  }));
  const byKey = new Map(options.map((o) => [o.key, o]));
  const { pollData } = widgetDataSchemas();
  for (const sub of widgets.slice(1)) {
    const data = pollData.safeParse(parse(sub.content));
    if (!data.success) continue;
    const d = data.data;
    if (d.type === "question") {
      if (sub.sender_id === author) question = d.question;
    } else if (d.type === "new_option") {
      const key = `${sub.sender_id},${d.idx}`;
      if (byKey.has(key)) continue;
      const option = { key, text: d.option, voters: new Set<number>() };
      options.push(option);
      byKey.set(key, option);
    } else {
      const option = byKey.get(d.key);
      if (!option) continue;
      if (d.vote === 1) option.voters.add(sub.sender_id);
      else option.voters.delete(sub.sender_id);
    }
  }
  return {
    question,
    options: options.map((o) => ({
      key: o.key,
      text: o.text,
      votes: o.voters.size,
      voters: [...o.voters].sort((a, b) => a - b),
    })),
  };
}

/** A poll message the bot posted, with `tally()`: its votes read from the server when asked. */
export function sentPoll(api: ApiClient, sent: SentMessage): Poll {
  return {
    ...sent,
    async tally() {
      const { message } = await api.messages.get({ message_id: sent.id });
      const tally = pollTally(message.submessages ?? []);
      if (!tally) throw new Error(`poll: message ${sent.id} is not a poll`);
      return tally;
    },
  };
}
