// ci: remembers the latest build result per branch from #ci (webhook or `bot send`) and answers !builds.
import { definePlugin, z } from "topicbot";

interface Build {
  status: string;
  url: string;
  /** UNIX seconds. */
  at: number;
}

const BUILD = /^Build (\w+): (\S+) \((\S+)\)$/;

export default definePlugin({
  name: "ci",
  description: "Keeps the latest build of each branch, as posted in the CI channel.",
  config: z.object({ channel: z.string().default("ci") }),
  setup(bot, config) {
    bot.on("message", async (event) => {
      const m = event.message;
      if (m.type !== "stream" || m.display_recipient !== config.channel) return;
      const build = BUILD.exec(m.content.trim());
      if (!build) return;
      const [, status, branch, url] = build;
      await bot.storage.set(`branch:${branch}`, { status, url, at: m.timestamp } satisfies Build);
    });

    bot.command(
      "builds",
      { description: "The latest build of each branch", examples: ["builds"] },
      async (ctx) => {
        const keys = (await bot.storage.list("branch:")).sort();
        if (keys.length === 0) {
          await ctx.reply(`No builds seen in #**${config.channel}** yet.`);
          return;
        }
        const lines = [];
        for (const key of keys) {
          const b = (await bot.storage.get<Build>(key))!;
          const mark = b.status === "passed" ? "✅" : "❌";
          lines.push(`- ${mark} \`${key.slice("branch:".length)}\`: ${b.status} ([log](${b.url}))`);
        }
        await ctx.reply(lines.join("\n"));
      },
    );
  },
});
