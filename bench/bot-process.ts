// The bot the reply benchmark talks to, in its own process: `!echo <n>` answers `echo <n>`.
// Usage: node --import tsx bench/bot-process.ts <site> <email> <apiKey>; prints "ready" when polling.
import { arg, createBot, definePlugin } from "../src/index.js";

const [site, email, apiKey] = process.argv.slice(2);
if (!site || !email || !apiKey) throw new Error("usage: bot-process.ts <site> <email> <apiKey>");

const echo = definePlugin({
  name: "echo",
  setup(bot) {
    bot.command(
      "echo",
      { description: "Answers with the number", args: { n: arg.number() } },
      (ctx) => ctx.reply(`echo ${ctx.command.args.n}`),
    );
  },
});

const bot = createBot({
  server: { site, email, apiKey },
  plugins: [echo],
  rateLimit: false,
  // Load from many users is not a runaway plugin: the per-conversation tripwire would drop replies.
  loopGuard: false,
  timeZone: "UTC",
});
await bot.start();
process.stdout.write("ready\n");
await bot.done;
