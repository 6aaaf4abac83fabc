// files: turns text and whole topics into uploaded files, and answers with their links.
import { channelHistoryAccess, definePlugin, z } from "topicbot";

/** The longest file name, in characters, extension included. */
export const MAX_FILE_NAME = 100;

/**
 * A safe file name: letters, digits, dots, dashes; `.md` added when there is no extension; at
 * most `MAX_FILE_NAME` characters (a longer name is cut before its extension), so the reply that
 * links it stays one short message.
 */
export function fileName(name: string, fallback: string): string {
  const cleaned = name
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}._-]+/gu, "-")
    .replace(/^[-.]+|-+$/g, "");
  const base = cleaned === "" ? fallback : cleaned;
  const full = /\.[a-z0-9]{1,8}$/i.test(base) ? base : `${base}.md`;
  const chars = [...full];
  if (chars.length <= MAX_FILE_NAME) return full;
  const ext = /\.[a-z0-9]{1,8}$/i.exec(full)![0];
  return (
    chars
      .slice(0, MAX_FILE_NAME - ext.length)
      .join("")
      .replace(/[-.]+$/, "") + ext
  );
}

export default definePlugin({
  name: "files",
  description: "Saves text and topic transcripts as files and links them.",
  config: z.object({
    /** How many messages `export` takes at most (the newest). */
    maxExport: z.number().int().min(1).max(5000).default(1000),
  }),
  setup(bot, config) {
    bot.command(
      "file",
      {
        description: "Save the text after the name (a code block works too) as a file",
        examples: ["file notes.txt remember the milk", "file deploy.sh ```\nnpm run deploy\n```"],
      },
      async (ctx) => {
        const match = /^(\S+)\s+([\s\S]+)$/.exec(ctx.command.text);
        if (!match) {
          await ctx.reply("Usage: `!file <name> <text>`: the text becomes the file's content.");
          return;
        }
        const fence = /^```[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(match[2]!);
        const content = fence ? `${fence[1]}\n` : `${match[2]}\n`;
        const file = await ctx.upload(Buffer.from(content, "utf8"), fileName(match[1]!, "note"));
        await ctx.reply(`Saved ${file.markdown} (${Buffer.byteLength(content)} bytes).`);
      },
    );

    bot.command(
      "export",
      { description: "Save this topic's messages as a Markdown file", examples: ["export"] },
      async (ctx) => {
        if (ctx.conversation.type !== "channel") {
          await ctx.reply("`export` works in a channel topic.");
          return;
        }
        const { channel, topic, streamId } = ctx.conversation;
        // The bot reads the whole history; the file holds only what the sender could read there.
        const access = await channelHistoryAccess(ctx.api, ctx.sender.userId, streamId);
        if (access !== "all") {
          await ctx.reply(
            access === "received"
              ? "I can't export this topic: this channel shows its members only what was sent while they were subscribed, and I can't tell when you joined."
              : "I can't export this topic: you can't read this channel's history.",
          );
          return;
        }
        const { messages } = await ctx.api.messages.list({
          anchor: ctx.message.id,
          include_anchor: false,
          num_before: config.maxExport,
          num_after: 0,
          narrow: [
            { operator: "channel", operand: channel },
            { operator: "topic", operand: topic },
          ],
          apply_markdown: false,
        });
        const lines = [`# #${channel} > ${topic}`, ""];
        for (const m of messages) {
          const when = new Date(m.timestamp * 1000).toISOString().replace(".000Z", "Z");
          lines.push(`**${m.sender_full_name}** (${when}):`, "", m.content, "");
        }
        const file = await ctx.upload(
          Buffer.from(lines.join("\n"), "utf8"),
          fileName(`${channel}-${topic}`, "topic"),
        );
        await ctx.reply(
          `Exported ${messages.length} ${messages.length === 1 ? "message" : "messages"}: ${file.markdown}`,
        );
      },
    );
  },
});
