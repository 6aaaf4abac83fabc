// The bot the reply benchmark talks to, in its own process: `!echo <n>` answers `echo <n>`.
// Usage: node --import tsx bench/bot-process.ts <site> <email> <apiKey> [<store file>]; prints "ready" when polling.
// With a store file the bot keeps its delivery journal beside it, as `bot start` with `storage: file` does.
import { arg, createBot, definePlugin } from "../src/index.js";
import { openDeliveryStore } from "../src/runtime/delivery/open-store.js";
import { createStore, type StorageConfig } from "../src/storage/index.js";

const [site, email, apiKey, storePath] = process.argv.slice(2);
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

const config: StorageConfig = storePath ? { type: "file", path: storePath } : { type: "memory" };
const storage = await createStore(config);
const bot = createBot({
  server: { site, email, apiKey },
  storage,
  delivery: await openDeliveryStore(config, storage),
  plugins: [echo],
  rateLimit: false,
  // Load from many users is not a runaway plugin: the per-conversation tripwire would drop replies.
  loopGuard: false,
  timeZone: "UTC",
});
await bot.start();
process.stdout.write("ready\n");
await bot.done;
