// An assistant that follows a topic after a mention: streams its answers, reads the topic's history, uses chat tools.
import { definePlugin } from "topicbot";
import { answer } from "topicbot/ai";
import type { LanguageModel } from "ai";

const SYSTEM =
  "You are the team's assistant in a chat topic. Answer briefly. You can react to messages, " +
  "post in another topic, set reminders and upload files with your tools.";

/**
 * The assistant plugin, answering with `model` (any AI SDK language model).
 *
 * Mention it in a topic and it answers, then follows the topic for 30 minutes: every message
 * there gets an answer without a mention, until `!quiet` or half an hour of silence.
 */
export function assistant(model: LanguageModel) {
  return definePlugin({
    name: "assistant",
    description: "Answers with a language model; after a mention it follows the topic",
    setup(bot) {
      bot.command("quiet", { description: "Stop following this topic" }, async (ctx) => {
        await ctx.unfollow();
        await ctx.reply("I'll stay quiet here. Mention me when you need me.");
      });
      // Addressed messages that are no command: answer, then keep listening here.
      bot.hear(
        /[\s\S]+/,
        async (ctx) => {
          await ctx.follow({ idleMinutes: 30 });
          await answer(ctx, { model, system: SYSTEM });
        },
        { shadowsHelp: false },
      );
      // Every message of a followed topic, mentioned or not.
      bot.followed((ctx) => answer(ctx, { model, system: SYSTEM }));
    },
  });
}
