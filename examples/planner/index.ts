// planner: an example plugin using every command argument type, roles, storage, sessions and a dialog.
import { arg, atLeast, definePlugin, formatDuration, z } from "topicbot";

interface Reminder {
  userId: number;
  at: string;
  what: string;
}

interface Profile {
  name: string;
  colour: string;
}

export default definePlugin({
  name: "planner",
  description: "Reminders, announcements and a small sign-up dialog.",
  config: z.object({ askTimeoutMs: z.number().int().positive().default(60_000) }),
  setup(bot, config) {
    const profiles = bot.session<Profile>({ perUser: true });

    bot.command(
      "remind",
      {
        description: "Note a reminder for someone",
        aliases: ["rm"],
        args: {
          who: arg.user().describe("who to remind: @**Name** or me"),
          when: arg.time().describe("when: `in 10 minutes`, `tomorrow 9:00`, `friday 5pm`"),
          what: arg.rest(),
        },
        options: { silent: arg.flag() },
        examples: ["remind me tomorrow 9:00 water the plants", "remind @**Mia Member** in 2h call"],
      },
      async (ctx) => {
        const { who, when, what } = ctx.command.args;
        const list = (await bot.storage.get<Reminder[]>("reminders")) ?? [];
        list.push({ userId: who.userId, at: when.toISOString(), what });
        await bot.storage.set("reminders", list);
        const target = who.userId === ctx.sender.userId ? "you" : `@_**${who.fullName}**`;
        const note = `I'll remind ${target} <time:${when.toISOString()}>: ${what}`;
        await ctx.reply(ctx.command.options.silent ? `(quietly) ${note}` : note);
      },
    );

    bot.command(
      "snooze",
      {
        description: "Stop reminders in this conversation for a while",
        args: { for: arg.duration() },
      },
      async (ctx) => {
        const ms = ctx.command.args.for;
        await ctx.userSession.set({ snoozed: true }, { ttlMs: ms });
        await ctx.reply(`Snoozed for ${formatDuration(ms)}.`);
      },
    );

    bot.command(
      "crosspost",
      {
        description: "Post a note into another topic",
        args: { where: arg.topic(), text: arg.rest() },
        examples: ["crosspost #**general>release** build is green"],
      },
      async (ctx) => {
        const { where, text } = ctx.command.args;
        await ctx.send({ to: where, content: `${ctx.sender.fullName} says: ${text}` });
        await ctx.reply(`Posted to #**${where.channel}>${where.topic}**.`);
      },
    );

    bot.command(
      "announce",
      {
        description: "Announce something in a channel",
        args: { channel: arg.channel(), text: arg.rest() },
        roles: atLeast("moderator"),
      },
      async (ctx) => {
        const { channel, text } = ctx.command.args;
        await ctx.send({ to: channel, topic: "announcements", content: text });
        await ctx.reply(`Announced in #**${channel.name}**.`);
      },
    );

    bot.command(
      "roll",
      {
        description: "Roll a die",
        args: { sides: z.coerce.number().int().min(2).default(6) },
      },
      (ctx) =>
        ctx.reply(
          `d${ctx.command.args.sides}: ${1 + Math.floor(Math.random() * ctx.command.args.sides)}`,
        ),
    );

    bot.command(
      "signup",
      { description: "Tell me your name and favourite colour" },
      async (ctx) => {
        const name = await ctx.ask("What's your name?", { timeoutMs: config.askTimeoutMs });
        if (!name) {
          await ctx.reply("No answer; never mind.");
          return;
        }
        const colour = await name.ask(`Thanks ${name.text}! Your favourite colour?`, {
          timeoutMs: config.askTimeoutMs,
        });
        if (!colour) {
          await ctx.reply("No answer; never mind.");
          return;
        }
        await profiles.of(ctx).set({ name: name.text, colour: colour.text });
        await colour.reply(`Saved: ${name.text} likes ${colour.text}.`);
      },
    );

    bot.command("profile", { description: "What I know about you here" }, async (ctx) => {
      const profile = await profiles.of(ctx).get();
      await ctx.reply(
        profile
          ? `${profile.name} likes ${profile.colour}.`
          : "I don't know you yet; say `signup`.",
      );
    });
  },
});
