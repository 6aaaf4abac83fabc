// deploys: a notifier plugin: announces deployments POSTed to a webhook, and sums them up every weekday.
import { definePlugin, z } from "topicbot";

export default definePlugin({
  name: "deploys",
  description: "Announces deployments and posts a daily summary.",
  config: z.object({
    token: z.string().min(8),
    channel: z.string().default("deploys"),
    timeZone: z.string().default("UTC"),
  }),
  setup(bot, config) {
    // POST /hooks/deploy with X-Webhook-Token: <token> and {"service": "...", "version": "..."}
    bot.webhook(
      "/hooks/deploy",
      { auth: { type: "token", token: config.token } },
      async ({ payload }) => {
        const { service, version } = payload as { service: string; version: string };
        const today = (await bot.storage.get<string[]>("today")) ?? [];
        await bot.storage.set("today", [...today, `${service} ${version}`]);
        await bot.api.messages.send({
          type: "channel",
          to: config.channel,
          topic: service,
          content: `Deployed **${version}**`,
        });
      },
    );

    // At 18:00 on weekdays: what went out today.
    bot.cron(
      "0 18 * * 1-5",
      async () => {
        const today = (await bot.storage.get<string[]>("today")) ?? [];
        if (today.length === 0) return;
        await bot.api.messages.send({
          type: "channel",
          to: config.channel,
          topic: "summary",
          content: `Deployed today:\n${today.map((d) => `* ${d}`).join("\n")}`,
        });
        await bot.storage.delete("today");
      },
      { name: "deploy-summary", timeZone: config.timeZone },
    );
  },
});
