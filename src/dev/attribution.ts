// Which plugin and handler produced what the bot does: a middleware notes it as each action starts.
import type { Middleware } from "../runtime/compose.js";
import { conversationKey } from "../runtime/conversation.js";
import type { MessageContext } from "../runtime/context.js";
import type { StoredMessage } from "../sandbox/realm.js";

const ACTIONS = [
  "reply",
  "send",
  "react",
  "upload",
  "schedule",
  "report",
  "markTopicRead",
] as const;

/** `ping › command ping`, `echo › hear /^hi/`, or `builtin › command help`. */
export function handlerLabel(ctx: MessageContext): string | undefined {
  if (!ctx.plugin) return undefined;
  const handler = ctx.command
    ? `command ${ctx.command.name}`
    : ctx.match
      ? `hear ${JSON.stringify(ctx.match[0])}`
      : "filter";
  return `${ctx.plugin} › ${handler}`;
}

/** The conversation key of a stored message, as `conversationKey` makes it for the runtime's messages. */
export function storedConversationKey(m: StoredMessage): string {
  return m.kind === "stream"
    ? `channel:${m.streamId}:${m.topic.toLowerCase()}`
    : `direct:${[...m.recipients].sort((a, b) => a - b).join(",")}`;
}

/**
 * Remembers, per conversation and per handled message, the handler whose action is under way,
 * so that `bot dev` can show where each of the bot's messages and reactions came from.
 */
export class Attribution {
  readonly #byConversation = new Map<string, string>();
  readonly #byMessage = new Map<number, string>();
  #latest: { label: string; at: number } | undefined;

  /** Install with `bot.use(attribution.middleware)` before the bot starts. */
  readonly middleware: Middleware<MessageContext> = async (ctx, next) => {
    const key = conversationKey(ctx.conversation);
    for (const name of ACTIONS) {
      const original = ctx[name] as (...args: unknown[]) => Promise<unknown>;
      (ctx as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        const label = handlerLabel(ctx) ?? "runtime";
        this.#byConversation.set(key, label);
        this.#byMessage.set(ctx.message.id, label);
        this.#latest = { label, at: Date.now() };
        return original.apply(ctx, args);
      };
    }
    try {
      await next();
    } finally {
      this.#byMessage.delete(ctx.message.id);
      if (this.#byConversation.get(key) !== undefined) this.#byConversation.delete(key);
    }
  };

  /** Who produced this bot message: its conversation's handler, else the one that acted last (within a second). */
  ofMessage(m: StoredMessage): string | undefined {
    return this.#byConversation.get(storedConversationKey(m)) ?? this.#recent();
  }

  /** Who reacted to this message. */
  ofReaction(messageId: number): string | undefined {
    return this.#byMessage.get(messageId) ?? this.#recent();
  }

  /** The handler that acted last, within the last second (uploads carry no conversation). */
  latest(): string | undefined {
    return this.#recent();
  }

  #recent(): string | undefined {
    return this.#latest && Date.now() - this.#latest.at < 1_000 ? this.#latest.label : undefined;
  }
}
