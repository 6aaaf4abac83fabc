// remind: "remind me in 2 hours to ...", reminders for others and for topics, sent as the server's scheduled messages.
import {
  codeBlock,
  definePlugin,
  escapeText,
  md,
  mention,
  raw,
  silentMention,
  z,
  type MessageContext,
  type TrustedMarkdown,
} from "topicbot";
import { mentionedUser } from "./mentioned.js";
import { parseReminder, type ReminderRequest } from "./parse.js";

/** A request the plugin turns down, with the reason for the sender. */
class Refusal extends Error {}

interface Pending {
  id: number;
  /** Epoch milliseconds. */
  at: number;
  what: string;
  /** Markdown the plugin wrote (a silent mention or a topic link), shown as it is. */
  where: string;
}

/**
 * The reminder's text after the bot's own words: on the same line when it is one line, quoted
 * below when it has several, so that none of its lines passes for the bot's own (a forged
 * "Reminder from **Olivia Owner**: ..." line).
 */
const body = (what: string): TrustedMarkdown =>
  raw(/[\r\n]/.test(what) ? `\n${codeBlock(what, "quote")}` : ` ${escapeText(what)}`);

const USAGE =
  "Usage: `remind <me|@**user**|#**channel>topic**> <when> <what>`, e.g. `remind me in 2 hours to stretch`.";

export default definePlugin({
  name: "remind",
  description: "Reminders for you, for others and for topics, delivered by the server at the time.",
  config: z.object({
    /** Time zone for wall times (`tomorrow 9:00`) when the sender's profile has none. */
    timeZone: z.string().default("UTC"),
  }),
  setup(bot, config) {
    /** The sender's profile time zone, else the configured one. */
    const zoneOf = async (ctx: MessageContext): Promise<string> =>
      (await bot.users.user(ctx.sender.userId))?.timezone || config.timeZone;

    const deliver = async (ctx: MessageContext, request: ReminderRequest): Promise<string> => {
      const { target, at, what } = request;
      if (target.kind === "me") {
        const to = ctx.isDirect ? "" : `${mention(ctx.sender)} `;
        await ctx.schedule(md`${raw(to)}Reminder:${body(what)}`, at);
        return ctx.isDirect ? "you" : "you here";
      }
      if (target.kind === "user") {
        const user = await mentionedUser(ctx, bot.users, target);
        // One answer for "no such user" and "a user you cannot see" (a guest limited by the
        // realm's user access), so a guest cannot learn who exists nor message them through the bot.
        if (!user) throw new Refusal(md`I don't know a user ${`@**${target.name}**`}.`);
        await ctx.schedule(md`Reminder from **${ctx.sender.fullName}**:${body(what)}`, at, {
          to: [user.userId],
        });
        return silentMention(user).markdown;
      }
      const { streams } = await ctx.api.channels.list({});
      const channel = streams.find((s) => s.name.toLowerCase() === target.channel.toLowerCase());
      // The bot posts for the sender: only where they could post themselves. One answer for both
      // cases, so a guest cannot learn which private channels exist.
      if (!channel || !(await ctx.canPostTo(channel.stream_id)))
        throw new Refusal(
          md`I can't remind #**${target.channel}**: there is no channel by that name that you can post to.`,
        );
      await ctx.schedule(md`Reminder from **${ctx.sender.fullName}**:${body(what)}`, at, {
        to: channel.stream_id,
        topic: target.topic,
      });
      return md`#**${channel.name}>${target.topic}**`;
    };

    bot.command(
      "remind",
      {
        description: "Remind you, someone or a topic of something at a time",
        examples: [
          "remind me in 2 hours to stretch",
          "remind @**Mia Member** tomorrow 9:00 to send the report",
          "remind #**general>standup** friday 5pm code freeze",
        ],
      },
      async (ctx) => {
        let request: ReminderRequest;
        try {
          request = parseReminder(ctx.command.text, {
            now: ctx.message.timestamp * 1000,
            timeZone: await zoneOf(ctx),
          });
        } catch (error) {
          await ctx.reply(`${(error as Error).message}\n${USAGE}`);
          return;
        }
        let where: string;
        try {
          where = await deliver(ctx, request);
        } catch (error) {
          if (!(error instanceof Refusal)) throw error;
          await ctx.reply(error.message);
          return;
        }
        const key = `pending:${ctx.sender.userId}`;
        const pending = (await bot.storage.get<Pending[]>(key)) ?? [];
        const now = ctx.message.timestamp * 1000;
        const kept = pending.filter((p) => p.at > now);
        kept.push({ id: ctx.message.id, at: request.at.getTime(), what: request.what, where });
        await bot.storage.set(key, kept);
        await ctx.reply(
          md`I'll remind ${raw(where)} <time:${raw(request.at.toISOString())}>:${body(request.what)}`,
        );
      },
    );

    bot.command(
      "reminders",
      { description: "List the reminders you set that are still to come", examples: ["reminders"] },
      async (ctx) => {
        const now = ctx.message.timestamp * 1000;
        const pending = ((await bot.storage.get<Pending[]>(`pending:${ctx.sender.userId}`)) ?? [])
          .filter((p) => p.at > now)
          .sort((a, b) => a.at - b.at);
        await ctx.reply(
          pending.length === 0
            ? "You have no reminders to come."
            : [
                "Your reminders to come:",
                ...pending.map(
                  (p) =>
                    md`- <time:${raw(new Date(p.at).toISOString())}> for ${raw(p.where)}: ${p.what.replace(/\s*[\r\n]+\s*/g, " / ")}`,
                ),
              ].join("\n"),
        );
      },
    );
  },
});
