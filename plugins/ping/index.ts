// ping: the smallest useful plugin; answers `ping` with `pong`.
import { definePlugin } from "topicbot";

export default definePlugin({
  name: "ping",
  description: "Answers ping with pong, to check that the bot is alive.",
  setup(bot) {
    bot.command("ping", { description: "Check that the bot answers", examples: ["!ping"] }, (ctx) =>
      ctx.reply("pong"),
    );
  },
});
