// poll: a question with options, reactions as votes, a tally kept live in the poll message.
import {
  conversationKey,
  definePlugin,
  md,
  MessageEditWindowError,
  raw,
  tokenize,
  z,
  type MessageContext,
} from "topicbot";
import { countVotes, renderPoll, winner, type Poll } from "./tally.js";

const FRUIT = [
  "banana",
  "cherries",
  "grapes",
  "lemon",
  "peach",
  "pear",
  "strawberry",
  "watermelon",
  "tangerine",
  "pineapple",
];

/** The longest question and option, in characters: a poll fits one screen. */
const MAX_QUESTION = 300;
const MAX_OPTION = 100;

/**
 * A question or option as one line: a line break inside quotes would let it write lines of its
 * own into the poll message (a forged `:banana: pizza: **99** votes`).
 */
const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim();

/** The server's role numbers up to moderator (100 owner, 200 administrator, 300 moderator). */
const MODERATOR = 300;

/** Whether the sender is a moderator, an administrator or an owner, as the server says now. */
async function isModerator(ctx: MessageContext): Promise<boolean> {
  const { members } = await ctx.api.users.list({ user_ids: [ctx.sender.userId] });
  const role = members.find((m) => m.user_id === ctx.sender.userId)?.role;
  return typeof role === "number" && role <= MODERATOR;
}

export default definePlugin({
  name: "poll",
  description: "Polls: reactions are the votes, and the poll message keeps the tally.",
  config: z.object({
    /** The emoji that vote for the first, second, ... option; also bounds the number of options. */
    emoji: z.array(z.string().min(1)).min(2).default(FRUIT),
  }),
  setup(bot, config) {
    const pollKey = (id: number) => `poll:${id}`;
    const latestKey = (conversation: string) => `latest:${conversation}`;

    let botId: number | undefined;
    const me = async (): Promise<number> => (botId ??= (await bot.api.users.me()).user_id);

    /** Recounts from the server's reactions and rewrites the poll message. */
    const refresh = async (id: number, poll: Poll): Promise<number[]> => {
      const { message } = await bot.api.messages.get({ message_id: id });
      const votes = countVotes(poll, message.reactions ?? [], await me());
      try {
        await bot.api.messages.update({ message_id: id, content: renderPoll(poll, votes) });
      } catch (error) {
        // Past the realm's edit window the tally stays as it was; closing still counts every vote.
        if (!(error instanceof MessageEditWindowError)) throw error;
        bot.log.info({ messageId: id }, "poll message past the edit window; tally not rewritten");
      }
      return votes;
    };

    bot.command(
      "poll",
      {
        description:
          "Start a poll (question and options, quoted when they have spaces), or `close` the last one here",
        examples: ['poll "Lunch where?" pizza sushi "the usual place"', "poll close"],
      },
      async (ctx) => {
        const words = tokenize(ctx.command.text).map((t) => oneLine(t.value));
        const here = latestKey(conversationKey(ctx.conversation));
        if (words.length === 1 && words[0]!.toLowerCase() === "close") {
          const id = await bot.storage.get<number>(here);
          const poll = id === undefined ? undefined : await bot.storage.get<Poll>(pollKey(id));
          if (id === undefined || !poll || poll.closed) {
            await ctx.reply("There is no open poll in this conversation.");
            return;
          }
          // Anyone can start a poll; only whoever asked (or a moderator) ends it for everyone.
          if (poll.authorId !== ctx.sender.userId && !(await isModerator(ctx))) {
            await ctx.reply(
              md`Only ${poll.author} (who asked) or a moderator can close this poll.`,
            );
            return;
          }
          poll.closed = true;
          await bot.storage.set(pollKey(id), poll);
          const votes = await refresh(id, poll);
          await ctx.react("check");
          await ctx.reply(
            md`Poll closed: **${poll.question}**. Result: ${raw(winner(poll, votes))}.`,
          );
          return;
        }
        const [question, ...options] = words;
        if (!question || options.length < 2) {
          await ctx.reply(
            'A poll needs a question and at least two options: `!poll "Lunch where?" pizza sushi`.',
          );
          return;
        }
        if (
          [...question].length > MAX_QUESTION ||
          options.some((o) => [...o].length > MAX_OPTION)
        ) {
          await ctx.reply(
            `A poll's question can be at most ${MAX_QUESTION} characters, and each option at most ${MAX_OPTION}.`,
          );
          return;
        }
        if (options.some((o) => o === "") || question === "") {
          await ctx.reply(
            'A poll\'s question and options cannot be empty: `!poll "Lunch where?" pizza sushi`.',
          );
          return;
        }
        if (options.length > config.emoji.length) {
          await ctx.reply(`A poll can have at most ${config.emoji.length} options.`);
          return;
        }
        const poll: Poll = {
          question,
          options,
          emoji: config.emoji.slice(0, options.length),
          author: ctx.sender.fullName,
          authorId: ctx.sender.userId,
          closed: false,
        };
        const sent = await ctx.reply(
          renderPoll(
            poll,
            options.map(() => 0),
          ),
        );
        await bot.storage.set(pollKey(sent.id), poll);
        await bot.storage.set(here, sent.id);
        // The bot's own reactions are the ballot: one click to vote.
        for (const emoji of poll.emoji)
          await ctx.api.messages.addReaction({ message_id: sent.id, emoji_name: emoji });
      },
    );

    bot.on("reaction", async (event) => {
      const poll = await bot.storage.get<Poll>(pollKey(event.message_id));
      if (!poll || poll.closed || !poll.emoji.includes(event.emoji_name)) return;
      if (event.user_id === (await me())) return;
      await refresh(event.message_id, poll);
    });
  },
});
