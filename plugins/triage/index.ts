// triage: reports messages to the moderators (by command, or by rule), then marks the topic read.
import { arg, definePlugin, escapeText, z, type MessageContext } from "topicbot";

const REASONS = ["spam", "harassment", "inappropriate", "norms", "other"] as const;

/** The longest explanation a report takes, in characters. */
const MAX_EXPLANATION = 1_000;

const rule = z.object({
  /** A regular expression (case-insensitive) the whole message text is tested against. */
  pattern: z.string().min(1),
  reason: z.enum(REASONS).default("spam"),
  /** Sent with the report; required by the server when the reason is `other`. */
  explanation: z.string().optional(),
});

/** A message ID from a bare number or a message link (`.../near/123`, `.../with/123`). */
export function messageIdOf(word: string): number | undefined {
  const match = /^(\d+)$/.exec(word) ?? /\/(?:near|with)\/(\d+)(?:[/?#)]|$)/.exec(word);
  return match ? Number(match[1]) : undefined;
}

/** What an administrator sets so that reports reach the moderators. */
const SETTING =
  "an administrator sets one in Settings → Organization settings → Moderation → Moderation requests channel (realm setting `moderation_request_channel_id`)";

/**
 * Whether the server refused a report because the organization has no moderation request channel
 * (none set, or it was archived). The server answers BAD_REQUEST, a code it uses for many
 * refusals, so its message is what tells this one apart. Read by shape, not `instanceof ApiError`:
 * a plugin may hold another copy of topicbot than the runtime that threw.
 */
export function noModerationChannel(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== "ApiError") return false;
  const { status, msg } = error as Error & { status?: unknown; msg?: unknown };
  return status === 400 && typeof msg === "string" && /moderation request channel/i.test(msg);
}

export default definePlugin({
  name: "triage",
  description:
    "Reports messages to the moderators, on request or by rule, and keeps the bot's unread count down.",
  config: z.object({
    /** Messages matching a rule are reported automatically (every message with `respondTo: all`). */
    rules: z.array(rule).default([]),
  }),
  setup(bot, config) {
    const rules = config.rules.map((r) => ({ ...r, regex: new RegExp(r.pattern, "i") }));

    const markRead = async (ctx: MessageContext): Promise<void> => {
      if (ctx.conversation.type === "channel") await ctx.markTopicRead();
    };

    // Rules: the matching message itself is reported, and goes no further.
    bot.use(async (ctx, next) => {
      const hit =
        ctx.sender.userId === ctx.me.userId
          ? undefined
          : rules.find((r) => r.regex.test(ctx.message.content));
      if (!hit) return next();
      try {
        await ctx.report(hit.reason, hit.explanation ?? `matched the triage rule /${hit.pattern}/`);
      } catch (error) {
        if (!noModerationChannel(error)) throw error;
        bot.log.warn(
          { messageId: ctx.message.id, rule: hit.pattern },
          `triage: a message matched a rule but the organization has no moderation request channel, so nothing was reported; ${SETTING}`,
        );
        return;
      }
      await markRead(ctx);
      bot.log.info({ messageId: ctx.message.id, rule: hit.pattern }, "reported a message by rule");
    });

    bot.command(
      "triage",
      {
        description: `Report a message (its ID or link) to the moderators: ${REASONS.join(", ")}`,
        args: {
          message: arg.messageId().describe("the message's ID or a link to it"),
          reason: arg.choice(...REASONS),
          explanation: arg
            .text({ max: MAX_EXPLANATION })
            .optional()
            .describe(`why, up to ${MAX_EXPLANATION} characters; required for \`other\``),
        },
        examples: [
          "triage 1234 spam",
          "triage https://chat.example.com/#narrow/channel/1-general/topic/x/near/1234 other off-topic ads",
        ],
      },
      async (ctx) => {
        const { message: messageId, reason, explanation = "" } = ctx.command.args;
        if (reason === "other" && explanation === "") {
          await ctx.reply("Say why after `other`, e.g. `!triage 1234 other posting ads`.");
          return;
        }
        // Anyone may run the command, so it acts only on what the sender can see (IDs are guessable).
        if (!(await ctx.canSee(messageId))) {
          await ctx.reply(
            `I can't report message ${messageId}: there is no message with that ID that you can see.`,
          );
          return;
        }
        const by = `Triaged by ${ctx.sender.fullName}`;
        try {
          await ctx.api.messages.report({
            message_id: messageId,
            report_type: reason,
            // The server quotes the description into the moderators' channel: mentions made inert.
            // One line: a line break would let the explanation write lines of the notice's own
            // (a forged quote of the "reported" message).
            description: escapeText(
              (explanation ? `${explanation} (${by})` : by).replace(/\s+/g, " ").trim(),
            ),
          });
        } catch (error) {
          if (!noModerationChannel(error)) throw error;
          await ctx.reply(
            `I can't report messages yet: this organization has no moderation request channel for reports to go to. To fix it, ${SETTING}.`,
          );
          return;
        }
        await markRead(ctx);
        await ctx.reply(
          `Reported message ${messageId} to the moderators for ${reason}. Thank you.`,
        );
      },
    );
  },
});
