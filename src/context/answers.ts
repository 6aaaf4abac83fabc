// Questions a handler asks (`ctx.ask`): posting one and waiting for its answer, and offering each message to its sender's open question before it is routed.
import type { Logger } from "../log/logger.js";
import type { Conversation } from "../model/conversation.js";
import { DEFAULT_ASK_TIMEOUT_MS, dialogKey, type AskOptions } from "./context-types.js";
import type { Dialogs } from "./session.js";

/** What a question's asking needs of its context, besides the dialogs. */
export interface Asking {
  /** Posts the question (the context's reply). */
  post(question: string): Promise<unknown>;
  /** The topic moved while the question waited: the context's replies go where it went. */
  relocate(to: Conversation): void;
  /** The question is out: the handler waits for the answer, no longer holding the message's slot. */
  waiting(): void;
}

/**
 * Asks `question` under `key` (`dialogKey`) and waits for the answer: resolves the answering
 * context, or undefined after the timeout. A question that could not be posted waits for nothing.
 */
export async function askAndWait<Ctx>(
  dialogs: Dialogs<Ctx>,
  key: string,
  question: string,
  options: AskOptions,
  asking: Asking,
): Promise<Ctx | undefined> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_ASK_TIMEOUT_MS;
  const answer = dialogs.wait(key, timeoutMs, question, (to) => asking.relocate(to));
  try {
    await asking.post(question);
  } catch (error) {
    dialogs.cancel(key);
    throw error;
  }
  asking.waiting();
  return answer;
}

/** What offering a message to an open question needs of its context. */
export interface Answering {
  readonly conversation: Conversation;
  readonly sender: { readonly userId: number };
  readonly log: Logger;
  reply(content: string): Promise<unknown>;
}

/**
 * Offers a message to the open question of its sender in its conversation. Returns true when the
 * message was an answer: taken by the handler that asked, or, for a question asked before a
 * restart (whose handler is gone), answered with a note that the bot lost its place.
 */
export async function takeAnswer<Ctx extends Answering>(
  ctx: Ctx,
  dialogs: Dialogs<Ctx>,
): Promise<boolean> {
  // With no open question, none from an earlier process, the answer is no, without a key or a wait.
  if (!dialogs.mayHave()) return false;
  const key = dialogKey(ctx.conversation, ctx.sender.userId);
  if (dialogs.offer(key, ctx)) return true;
  const lost = await dialogs.orphaned(key).catch(() => undefined);
  if (!lost) return false;
  await ctx
    .reply(
      `I asked you "${lost.question}" before I was restarted, and lost my place. Please start again.`,
    )
    .catch((error: unknown) => ctx.log.warn({ err: error }, "could not say a question was lost"));
  return true;
}
