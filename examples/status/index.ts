// status: a plugin that calls a third-party HTTP API with fetch (a status page) and reports what it says.
import { definePlugin, z } from "topicbot";

interface StatusPage {
  page: { name: string };
  status: { indicator: string; description: string };
}

export default definePlugin({
  name: "status",
  description: "Asks a Statuspage-style status API how a service is doing.",
  config: z.object({
    /** The status API, e.g. https://www.githubstatus.com/api/v2/status.json. */
    url: z.url().default("https://www.githubstatus.com/api/v2/status.json"),
    timeoutMs: z.number().int().positive().default(5_000),
  }),
  setup(bot, config) {
    bot.command(
      "status",
      { description: "How the watched service is doing", examples: ["status"] },
      async (ctx) => {
        let body: StatusPage;
        try {
          const response = await fetch(config.url, {
            signal: AbortSignal.timeout(config.timeoutMs),
          });
          if (!response.ok) throw new Error(`HTTP ${response.status}`);
          body = (await response.json()) as StatusPage;
        } catch (error) {
          bot.log.warn({ err: error, url: config.url }, "status page unreachable");
          await ctx.reply(`I could not reach the status page (${(error as Error).message}).`);
          return;
        }
        const mark =
          body.status.indicator === "none" ? "🟢" : body.status.indicator === "minor" ? "🟡" : "🔴";
        await ctx.reply(`${mark} **${body.page.name}**: ${body.status.description}`);
      },
    );
  },
});
