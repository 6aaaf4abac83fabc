// Cluster-wide exactly-once replies: a middleware that journals each reply in Redis (fenced intent before the send, IDs after).
import type { ApiClient } from "../client/client.js";
import type { Narrow } from "../api/common.js";
import type { Logger } from "../log/logger.js";
import type { SendParams } from "../api/messages.js";
import type { MessageContext } from "../runtime/context/context.js";
import type { SendTarget, SentMessage } from "../runtime/context/actions.js";
import type { Middleware } from "../runtime/dispatch/compose.js";
import type { Plugin } from "../runtime/plugin.js";
import type { RedisDeliveryStore } from "../storage/redis-delivery.js";
import type { ReplyRecord } from "../runtime/delivery/store.js";

export interface ClusterRepliesOptions {
  journal: RedisDeliveryStore;
  api: ApiClient;
  me: () => number;
  log: Logger;
  /** Records the intent, refused (throws) unless this node still owns the message's partition. */
  intend(ctx: MessageContext, field: string, intent: string): Promise<void>;
  now: () => number;
}

/**
 * A plugin whose middleware makes a message's replies cluster-wide once: when a partition moves
 * after its worker died mid-handler, the next worker handles the message again, and each reply that
 * went out (IDs journaled) is returned instead of sent; one whose intent was stored but not its IDs
 * is looked for among the bot's messages after the incoming one before it is sent.
 */
/** A reply that went out before (journaled or read back), as `ctx.reply` returns it. */
function sentAs(ctx: MessageContext, ids: number[]): SentMessage {
  return { id: ids[0]!, ids, repeated: true, edit: (changes) => ctx.edit(ids[0]!, changes) };
}

export function clusterReplies(options: ClusterRepliesOptions): Plugin {
  const middleware: Middleware<MessageContext> = async (ctx, next) => {
    let journaled: Promise<ReplyRecord[]> | undefined;
    let index = 0;
    const wrap =
      <A>(send: (arg: A) => Promise<SentMessage>, paramsOf: (arg: A) => SendParams) =>
      async (arg: A): Promise<SentMessage> => {
        const n = index++;
        const incomingId = ctx.message.id;
        journaled ??= options.journal.records(incomingId);
        const before = (await journaled).find((r) => r.index === n);
        if (before?.ids) return sentAs(ctx, before.ids);
        const params = paramsOf(arg);
        if (before?.intent) {
          const id = await readBack(options, params, incomingId);
          if (id !== undefined) {
            options.log.info(
              { messageId: id, incomingId },
              "a reply sent before a failover had arrived; not resending",
            );
            await options.journal.sent(incomingId, n, [id]);
            return sentAs(ctx, [id]);
          }
        }
        const intent = { incomingId, index: n, params, floor: incomingId, at: options.now() };
        await options.intend(ctx, `intent:${n}`, JSON.stringify(intent));
        const sent = await send(arg);
        await options.journal.sent(incomingId, n, sent.ids);
        return sent;
      };
    const here = ctx.conversation;
    const reply = ctx.reply.bind(ctx);
    const send = ctx.send.bind(ctx);
    ctx.reply = wrap(reply, (content: string): SendParams =>
      here.type === "channel"
        ? { type: "stream", to: here.streamId, topic: here.topic, content }
        : { type: "private", to: here.userIds, content },
    );
    ctx.send = wrap(send, (target: SendTarget): SendParams => ({
      type: "stream",
      to: 0,
      content: target.content,
    }));
    await next();
  };
  return {
    name: "topicbot-cluster",
    description: "cluster mode: replies sent once across nodes",
    setup: (bot) => bot.use(middleware),
  };
}

/** The bot's message after `floor` whose content is the reply's, if one was posted. */
async function readBack(
  options: ClusterRepliesOptions,
  params: SendParams,
  floor: number,
): Promise<number | undefined> {
  const sender = { operator: "sender", operand: options.me() };
  const narrow: Narrow =
    params.type === "stream" && typeof params.to === "number" && params.to > 0
      ? [
          sender,
          { operator: "stream", operand: params.to },
          { operator: "topic", operand: params.topic ?? "" },
        ]
      : [sender];
  const { messages } = await options.api.messages.list({
    anchor: "newest",
    num_before: 100,
    num_after: 0,
    narrow,
    apply_markdown: false,
  });
  const content = params.content.trim();
  return messages.find((m) => m.id > floor && m.content.trim() === content)?.id;
}
