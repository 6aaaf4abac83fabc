// incrementor: zulip_bots' `incrementor` bot, ported line for line: one reply, edited to count the mentions.
import { definePlugin } from "topicbot";

/**
 * zulip_bots' `incrementor`: the first mention gets a reply with `1`; every later mention edits
 * that same message to the next number. Each line below is the Python bot's, in topicbot's form.
 */
export default definePlugin({
  name: "incrementor",
  description: "Example bot to test the update_message() function.",
  async setup(bot) {
    // initialize(): storage.contains / storage.put
    const storage = bot.storage;
    if (!(await storage.has("number")) || !(await storage.has("message_id"))) {
      await storage.set("number", 0);
      await storage.set("message_id", null);
    }

    // handle_message(): every message that reaches the bot (respondTo: mentions, as zulip_bots).
    bot.hear(
      /[\s\S]*/,
      async (ctx) => {
        let num = Number(await storage.get<number>("number"));
        num = num + 1;
        await storage.set("number", num);
        const messageId = await storage.get<number | null>("message_id");
        if (messageId === null || messageId === undefined) {
          // bot_handler.send_reply(message, str(num))
          const result = await ctx.reply(String(num));
          await storage.set("message_id", result.id);
        } else {
          // bot_handler.update_message(dict(message_id=..., content=str(num)))
          await ctx.edit(messageId, { content: String(num) });
        }
      },
      // A catch-all like zulip_bots' handle_message, but `help` still gets the built-in help.
      { shadowsHelp: false },
    );
  },
});
