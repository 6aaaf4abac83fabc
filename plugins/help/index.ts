// help: configures the runtime's built-in help: an introduction, a footer, hidden plugins, answers in private.
import { definePlugin, md, silentMention, z, type MessageContext } from "topicbot";

/** Removes the sections of `hidden` plugins from the built-in help's command list. */
export function hideSections(index: string, hidden: readonly string[]): string {
  if (hidden.length === 0) return index;
  const sections = index.split("\n\n");
  return sections
    .filter((section, i) => i === 0 || !hidden.some((name) => section.startsWith(`**${name}**`)))
    .join("\n\n");
}

export default definePlugin({
  name: "help",
  description:
    "Shapes the built-in help: an introduction and footer, hidden plugins, answers by direct message.",
  config: z.object({
    /** Shown above the command list, e.g. who runs the bot. */
    intro: z.string().optional(),
    /** Shown below the command list, e.g. where to report problems. */
    footer: z.string().optional(),
    /** Plugins whose commands the list leaves out (they still work; `help <command>` still explains them). */
    hide: z.array(z.string()).default([]),
    /** Answer `help` asked in a channel by direct message, keeping the channel quiet. */
    private: z.boolean().default(false),
  }),
  setup(bot, config) {
    const shape = (index: string): string =>
      [config.intro, hideSections(index, config.hide), config.footer].filter(Boolean).join("\n\n");

    // The built-in help answers through ctx.reply: this middleware shapes what it sends.
    bot.use(async (ctx: MessageContext, next) => {
      const words = ctx.addressedVia === null ? [] : ctx.text.trim().split(/\s+/);
      if (words.length !== 1 || words[0]!.toLowerCase() !== "help") return next();
      const reply = ctx.reply.bind(ctx);
      ctx.reply = async (content) => {
        if (!config.private || ctx.isDirect) return reply(shape(content));
        await ctx.send({ to: [ctx.sender.userId], content: shape(content) });
        return reply(
          md`${silentMention(ctx.sender)} I sent you the list of commands in a direct message.`,
        );
      };
      await next();
    });
  },
});
