// echo: repeats what you tell it; the example bot that `bot start` runs on the shipped config.
import { definePlugin } from "topicbot";

export default definePlugin({
  name: "echo",
  description: "Repeats what you say after `echo`.",
  setup(bot) {
    bot.command("echo", { description: "Repeat the text", examples: ["!echo hello"] }, (ctx) =>
      ctx.reply(ctx.command.text || "Say something after `echo` and I will repeat it."),
    );
  },
});
