// Which plugin and handler produced what the bot does: a middleware notes it as each action starts.
import type { Middleware } from "../dispatch/compose.js";
import { conversationKey } from "../model/conversation.js";
import type { MessageContext } from "../context/context.js";
import type { StoredMessage } from "../sandbox/model.js";

const ACTIONS = [
  "reply",
  "send",
  "poll",
  "stream",
  "edit",
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
  return conversationKey(
    m.kind === "stream"
      ? { type: "channel", streamId: m.streamId!, channel: "", topic: m.topic }
      : { type: "direct", userIds: [...m.recipients].sort((a, b) => a - b) },
  );
}

/** Labels by key for a while after they were noted (at most `max` of them). */
class RecentLabels<K> {
  readonly #entries = new Map<K, { label: string; at: number }>();
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(ttlMs: number, max = 500) {
    this.#ttlMs = ttlMs;
    this.#max = max;
  }

  set(key: K, label: string): void {
    this.#entries.delete(key);
    this.#entries.set(key, { label, at: Date.now() });
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get(key: K): string | undefined {
    const entry = this.#entries.get(key);
    return entry && Date.now() - entry.at < this.#ttlMs ? entry.label : undefined;
  }
}

/** How long a sent message or a handled one keeps its label: its event may arrive after the handler ended. */
const KEEP_MS = 10_000;

/** One handled message: who acted on it, how long that took, and the IDs of what it sent. */
export interface HandledMessage {
  messageId: number;
  label: string;
  durationMs: number;
  sent: number[];
}

/** What attribution needs of a message: its ID and its conversation key (`conversationKey`). */
export interface AttributedMessage {
  id: number;
  conversation: string;
}

/**
 * Remembers which handler is acting in each conversation, which one sent each of the bot's
 * messages (by the IDs its `reply` and `send` resolve with) and which one acted on each handled
 * message, so that `bot dev` can show where each of the bot's messages and reactions came from,
 * whether it sees them in-process (sandbox) or through an event queue (a server).
 */
export class Attribution {
  readonly #byConversation = new Map<string, string>();
  readonly #bySent = new RecentLabels<number>(KEEP_MS);
  readonly #byHandled = new RecentLabels<number>(KEEP_MS);
  #latest: { label: string; at: number } | undefined;
  readonly #onHandled: (handled: HandledMessage) => void;

  /** `onHandled` hears of each message a handler acted on, once the handler has finished. */
  constructor(onHandled: (handled: HandledMessage) => void = () => undefined) {
    this.#onHandled = onHandled;
  }

  /** Install with `bot.use(attribution.middleware)` before the bot starts. */
  readonly middleware: Middleware<MessageContext> = async (ctx, next) => {
    const started = performance.now();
    const sent: number[] = [];
    const answers: MessageContext[] = [];
    const acted: { label?: string } = {};
    const labelOf = (): string => handlerLabel(ctx) ?? "runtime";
    this.#instrument(ctx, labelOf, sent, answers, acted);
    try {
      await next();
    } finally {
      this.#byConversation.delete(conversationKey(ctx.conversation));
      const label = handlerLabel(ctx) ?? acted.label;
      if (label) {
        const durationMs = performance.now() - started;
        // An answer to `ctx.ask` was handled by the handler that asked, as its own message was.
        for (const answer of answers)
          this.#onHandled({ messageId: answer.message.id, label, durationMs, sent: [] });
        this.#onHandled({ messageId: ctx.message.id, label, durationMs, sent });
      }
    }
  };

  /**
   * Wraps the actions of `target` (the handled message's context, or an answer `ctx.ask` resolved
   * with, whose actions the middleware never saw) so that each notes the handler's label.
   */
  #instrument(
    target: MessageContext,
    labelOf: () => string,
    sent: number[],
    answers: MessageContext[],
    acted: { label?: string },
  ): void {
    const key = conversationKey(target.conversation);
    const self = target as unknown as Record<string, unknown>;
    for (const name of ACTIONS) {
      const original = target[name] as (...args: unknown[]) => Promise<unknown>;
      self[name] = async (...args: unknown[]) => {
        const label = labelOf();
        acted.label = label;
        this.#byConversation.set(key, label);
        this.#byHandled.set(target.message.id, label);
        this.#latest = { label, at: Date.now() };
        const result = await original.apply(target, args);
        // `reply`, `send` and `poll` resolve with `ids`; `stream` with `messageIds`.
        const answer = result as { ids?: unknown; messageIds?: unknown } | undefined;
        const ids = answer?.ids ?? answer?.messageIds;
        if (Array.isArray(ids))
          for (const id of ids as number[]) {
            this.#bySent.set(id, label);
            sent.push(id);
          }
        return result;
      };
    }
    const ask = target.ask as (...args: unknown[]) => Promise<MessageContext | undefined>;
    self.ask = async (...args: unknown[]) => {
      const answer = await ask.apply(target, args);
      if (answer) {
        answers.push(answer);
        this.#byHandled.set(answer.message.id, labelOf());
        this.#instrument(answer, labelOf, sent, answers, acted);
      }
      return answer;
    };
  }

  /** Who produced this bot message: the handler that sent it, else its conversation's, else the one that acted last (within a second). */
  ofMessage(m: AttributedMessage): string | undefined {
    return this.#bySent.get(m.id) ?? this.#byConversation.get(m.conversation) ?? this.#recent();
  }

  /** Who reacted to this message: the handler that handled it, else the one that acted last. */
  ofReaction(messageId: number): string | undefined {
    return this.#byHandled.get(messageId) ?? this.#recent();
  }

  /** The handler that acted last, within the last second (uploads carry no conversation). */
  latest(): string | undefined {
    return this.#recent();
  }

  #recent(): string | undefined {
    return this.#latest && Date.now() - this.#latest.at < 1_000 ? this.#latest.label : undefined;
  }
}
