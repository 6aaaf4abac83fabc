// approval: "deploy v1.2?" with Approve / Reject for the on-call group, open for a day, decided once, across restarts.
import { arg, definePlugin, z } from "topicbot";

export default definePlugin({
  name: "approval",
  description: "Deploys after someone on call approves.",
  config: z.object({
    /** The on-call group: emails (or user IDs) of who may approve. */
    oncall: z.array(z.union([z.string(), z.number()])).min(1),
    /** How long a request stays open. */
    expires: z.string().default("1d"),
  }),
  setup(bot, config) {
    bot.command(
      "deploy",
      {
        description: "Ask the on-call group to approve a deploy, then deploy",
        args: { version: arg.string().describe("the version to deploy, e.g. v1.2") },
        examples: ["deploy v1.2"],
      },
      async (ctx) => {
        const { version } = ctx.command.args;
        // Waits for days if need be: after a restart this handler runs again for the same
        // message, and `approve` returns the decision at once (nothing above is sent twice).
        const decision = await ctx.approve(`Deploy ${version}?`, {
          approvers: { users: config.oncall },
          expires: config.expires,
          body: `Requested by ${ctx.sender.fullName}. Only the on-call group can decide.`,
        });
        if (decision.outcome === "expired")
          return void (await ctx.reply(`Nobody on call answered; ${version} is not deployed.`));
        if (!decision.approved)
          return void (await ctx.reply(`${decision.by!.fullName} rejected ${version}.`));
        const log = (await bot.storage.get<string[]>("deployed")) ?? [];
        await bot.storage.set("deployed", [...log, version]);
        await ctx.reply(`${decision.by!.fullName} approved: deploying ${version}.`);
      },
    );
  },
});
