// A poll's text: the question, each option with its emoji and vote count, and how to vote.
import { md } from "topicbot";

export interface Poll {
  question: string;
  options: string[];
  /** The emoji name that votes for each option, in option order. */
  emoji: string[];
  author: string;
  /** Who asked: they (and moderators) may close it. Absent in polls saved by older versions. */
  authorId?: number;
  closed: boolean;
}

/** Votes per option from a message's reactions; the bot's own reactions (the ballot) do not count. */
export function countVotes(
  poll: Poll,
  reactions: readonly { emoji_name: string; user_id: number }[],
  botId: number,
): number[] {
  return poll.emoji.map(
    (name) =>
      new Set(
        reactions.filter((r) => r.emoji_name === name && r.user_id !== botId).map((r) => r.user_id),
      ).size,
  );
}

/** The poll message's content for the given counts. */
export function renderPoll(poll: Poll, votes: readonly number[]): string {
  const total = votes.reduce((a, b) => a + b, 0);
  const lines = [md`**Poll: ${poll.question}** (asked by ${poll.author})`];
  for (const [i, option] of poll.options.entries()) {
    const n = votes[i] ?? 0;
    lines.push(md`:${poll.emoji[i]}: ${option}: **${n}** ${n === 1 ? "vote" : "votes"}`);
  }
  lines.push(
    poll.closed
      ? `Closed with ${total} ${total === 1 ? "vote" : "votes"}.`
      : "React with an option's emoji to vote; `!poll close` ends the poll.",
  );
  return lines.join("\n");
}

/** The options in the lead, for the closing message: `pizza (3)` or `a tie between pizza and sushi (2 each)`. */
export function winner(poll: Poll, votes: readonly number[]): string {
  const best = Math.max(0, ...votes);
  if (best === 0) return "no votes";
  const leaders = poll.options.filter((_, i) => votes[i] === best);
  return leaders.length === 1
    ? md`${leaders[0]} (${best} ${best === 1 ? "vote" : "votes"})`
    : md`a tie between ${leaders.join(" and ")} (${best} each)`;
}
