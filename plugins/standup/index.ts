// standup: a cron-driven prompt in a topic, answers collected from the topic, and a summary later on.
import { definePlugin, md, z } from "topicbot";

interface Answer {
  userId: number;
  name: string;
  text: string;
}

interface Round {
  /** The day of the round in the configured zone, `2025-03-03`. */
  day: string;
  promptId: number;
  answers: Answer[];
  closed: boolean;
}

/** `2025-03-03` for an instant, in a time zone. */
export function dayIn(at: Date, timezone: string): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(at);
}

/** The summary message of a round. */
export function summary(round: Round): string {
  if (round.answers.length === 0) return `Stand-up ${round.day}: nobody answered.`;
  const lines = [
    `Stand-up ${round.day}: ${round.answers.length} ${round.answers.length === 1 ? "answer" : "answers"}.`,
  ];
  for (const a of round.answers) lines.push(md`- **${a.name}**: ${a.text.replace(/\n+/g, " / ")}`);
  return lines.join("\n");
}

export default definePlugin({
  name: "standup",
  description: "Asks for stand-up answers on a schedule in one topic, and sums them up later.",
  config: z.object({
    channel: z.string().min(1).default("general"),
    topic: z.string().min(1).default("standup"),
    /** When to ask (cron, 5 fields). Default 9:00 on weekdays. */
    prompt: z.string().default("0 9 * * 1-5"),
    /** When to post the summary. Default 11:00 on weekdays. */
    summary: z.string().default("0 11 * * 1-5"),
    timezone: z.string().default("UTC"),
    question: z
      .string()
      .default(
        "Stand-up time! What did you do, what's next, anything blocking? Answer in this topic.",
      ),
  }),
  setup(bot, config) {
    const where = { type: "channel" as const, to: config.channel, topic: config.topic };

    bot.cron(
      config.prompt,
      async ({ scheduledAt }) => {
        const { id } = await bot.api.messages.send({ ...where, content: config.question });
        const round: Round = {
          day: dayIn(scheduledAt, config.timezone),
          promptId: id,
          answers: [],
          closed: false,
        };
        await bot.storage.set("round", round);
      },
      { name: "standup: prompt", timeZone: config.timezone },
    );

    bot.cron(
      config.summary,
      async () => {
        const round = await bot.storage.get<Round>("round");
        if (!round || round.closed) return;
        round.closed = true;
        await bot.storage.set("round", round);
        await bot.api.messages.send({ ...where, content: summary(round) });
      },
      { name: "standup: summary", timeZone: config.timezone },
    );

    // Every message in the stand-up topic after the prompt is an answer (the latest one per person).
    bot.on("message", async (event) => {
      const m = event.message;
      if (m.type !== "stream" || m.display_recipient !== config.channel) return;
      if (m.subject.toLowerCase() !== config.topic.toLowerCase()) return;
      const round = await bot.storage.get<Round>("round");
      if (!round || round.closed || m.id <= round.promptId) return;
      const me = await bot.api.users.me();
      if (m.sender_id === me.user_id || /^\s*[!@]/.test(m.content)) return;
      round.answers = [
        ...round.answers.filter((a) => a.userId !== m.sender_id),
        { userId: m.sender_id, name: m.sender_full_name, text: m.content.trim() },
      ];
      await bot.storage.set("round", round);
    });

    bot.command(
      "standup",
      { description: "Show the current stand-up's answers so far", examples: ["standup"] },
      async (ctx) => {
        const round = await bot.storage.get<Round>("round");
        if (!round) {
          await ctx.reply("No stand-up has been asked yet.");
          return;
        }
        // The answers are messages of the stand-up topic: only someone who can read the prompt
        // gets them (a guest, or a non-member of a private channel, asking in a DM would
        // otherwise read that channel through the bot). In a private channel with protected
        // history the bot cannot tell who was subscribed when, so it shows nobody (the channel
        // can share its history with subscribers). The reply does not name the channel.
        if (!(await ctx.canSee(round.promptId))) {
          await ctx.reply(
            "I can't show you the stand-up: I can't tell that you can read its channel.",
          );
          return;
        }
        await ctx.reply(summary(round) + (round.closed ? "" : " (still open)"));
      },
    );
  },
});
