// hello: greets whoever says !hello, with the greeting from bot.config.yaml.
import { definePlugin, z } from "topicbot";

export default definePlugin({
  name: "hello",
  description: "Greets people.",
  config: z.object({ greeting: z.string().default("Hello") }),
  setup(bot, config) {
    bot.command("hello", { description: "Say hello", examples: ["!hello"] }, (ctx) =>
      ctx.reply(`${config.greeting}, ${ctx.sender.fullName}!`),
    );
  },
});
