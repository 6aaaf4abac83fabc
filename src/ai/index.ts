// topicbot/ai: the AI SDK bridge. A model's streamed answer into ctx.stream, ctx actions as tools.
import { stepCountIs, streamText, type LanguageModel, type ModelMessage } from "ai";
import type { MessageContext } from "../context/context.js";
import type { HistoryOptions, Turn } from "../context/history.js";
import type { StreamResult } from "../context/stream.js";
import { escapeText } from "../markdown/escape.js";
import { readTime } from "../commands/types.js";
import {
  boundedMessage,
  budgetFor,
  BudgetTracker,
  trimHistory,
  type BudgetOptions,
} from "./budget.js";
import { chatTools, type AgentActions, type ChatToolName } from "./tools.js";

import { modelFor } from "./mock.js";

export { chatTools } from "./tools.js";
export { mockModel, MOCK_MODEL_ENV, type MockModelOptions } from "./mock.js";
export type { AgentActions, ChatToolName, ChatToolsOptions } from "./tools.js";
export {
  GUEST_BUDGET,
  MEMBER_BUDGET,
  budgetFor,
  type AgentBudget,
  type BudgetOptions,
} from "./budget.js";

/** How far ahead the `remind` tool schedules: the remind plugin's own cap (`arg.time({ maxAhead: "1y" })`). */
export const REMIND_MAX_AHEAD = "1y";

/**
 * The chat actions a model's tools may take, acting for the sender of `ctx`'s message: through
 * the context's own actions (exactly once, loop guard), with the sender's view of messages and
 * with model-written text made unable to ping anyone.
 */
export function agentActions(ctx: MessageContext): AgentActions {
  return {
    canSee: (messageId) => ctx.canSee(messageId),
    neutralize: escapeText,
    react: (emoji, messageId) => ctx.react(emoji, { message: messageId }),
    sendToTopic: async (topic, content) => {
      const here = ctx.conversation;
      // A direct conversation has no topics: the answer stays in it.
      if (here.type !== "channel") return ctx.reply(content);
      return ctx.send({ to: here.streamId, topic, content });
    },
    remind: (when, text) => {
      // The bounds a command's `arg.time()` obeys: in the future, at most a year out.
      const at = readTime(
        when,
        { now: ctx.now().getTime(), timeZone: ctx.timeZone },
        { future: true, maxAhead: REMIND_MAX_AHEAD },
      );
      return ctx.schedule(`Reminder for ${ctx.sender.fullName}: ${text}`, at, {
        to: [ctx.sender.userId],
      });
    },
    upload: (filename, content) => ctx.upload(Buffer.from(content, "utf8"), filename),
  };
}

/** Turns as AI SDK messages: the bot's own as `assistant`, others as `user` with their name. */
export function toModelMessages(turns: readonly Turn[]): ModelMessage[] {
  return turns.map((t) =>
    t.role === "assistant"
      ? { role: "assistant", content: t.text }
      : { role: "user", content: `${t.name}: ${t.text}` },
  );
}

export interface AnswerOptions {
  /** The model; `bot dev --mock-model` replaces it with `mockModel()`. */
  model: LanguageModel;
  system?: string;
  /** The conversation so far given to the model. Default: the last 20 messages, 8,000 characters. */
  history?: Omit<HistoryOptions, "before"> | false;
  /** Chat tools offered to the model: all (default), some by name, or none. */
  tools?: boolean | ChatToolName[];
  /** Model calls at most (tool rounds included). Default 4. */
  maxSteps?: number;
  /**
   * Budgets per model call and per message answered, by the sender's role: tool calls, distinct
   * topics posted to, messages sent, prompt characters. Default `MEMBER_BUDGET`, `GUEST_BUDGET`.
   */
  budget?: BudgetOptions;
}

/** Zulip's role number of a guest. */
const GUEST_ROLE = 600;

/** Whether the sender is a guest; a sender who cannot be looked up counts as one (the lower budget). */
async function senderIsGuest(ctx: MessageContext): Promise<boolean> {
  try {
    const { user } = await ctx.api.users.get({ user_id: ctx.sender.userId });
    return user.role === GUEST_ROLE;
  } catch {
    return true;
  }
}

/** The actions within the budget: a send past it is refused with the reason, as the model reads it. */
function withinBudget(
  actions: AgentActions,
  tracker: BudgetTracker,
  ctx: MessageContext,
): AgentActions {
  const spend = (topic?: string): void => {
    const why = tracker.message(topic);
    if (why !== undefined) throw new Error(why);
  };
  return {
    ...actions,
    sendToTopic: (topic, content) => {
      spend(ctx.conversation.type === "channel" ? topic : undefined);
      return actions.sendToTopic(topic, content);
    },
    remind: (when, text) => {
      spend();
      return actions.remind(when, text);
    },
  };
}

/**
 * What the model is told the sender said: the message meant for the bot without the mention or
 * prefix (`ctx.text`); for a command, what follows the command word (`!ask what is X` gives
 * "what is X": the command word is addressed to the bot, not a question), or the command word
 * itself when nothing follows (`!summarize` gives "summarize").
 */
export function askedText(ctx: Pick<MessageContext, "text" | "command">): string {
  if (!ctx.command) return ctx.text;
  return ctx.command.text.trim() || ctx.command.raw.trim();
}

/** The model's text, then the budget's notice when something was refused (and a log line saying so). */
async function* withNotice(
  text: AsyncIterable<string>,
  tracker: BudgetTracker,
  ctx: MessageContext,
): AsyncIterable<string> {
  yield* text;
  const notice = tracker.notice();
  if (notice === undefined) return;
  ctx.log.warn({ refused: tracker.refusals() }, "agent budget reached: actions refused");
  yield notice;
}

/**
 * Answers the message with a model: the conversation's history and the message go in, the
 * answer streams into the conversation (`ctx.stream`), tool calls act through `agentActions`.
 *
 * @example
 * import { answer } from "topicbot/ai";
 * bot.followed((ctx) => answer(ctx, { model, system: "You help the design team." }));
 */
export async function answer(ctx: MessageContext, options: AnswerOptions): Promise<StreamResult> {
  const budget = budgetFor(await senderIsGuest(ctx), options.budget);
  const tracker = new BudgetTracker(budget);
  const said = `${ctx.sender.fullName}: ${boundedMessage(askedText(ctx), budget.messageChars)}`;
  // What is left of the prompt budget after the system text and the message goes to history.
  const room = budget.promptChars - (options.system?.length ?? 0) - said.length;
  const turns =
    options.history === false || room <= 0
      ? []
      : trimHistory(await ctx.history(options.history), room);
  const messages: ModelMessage[] = [...toModelMessages(turns), { role: "user", content: said }];
  const tools =
    options.tools === false
      ? undefined
      : chatTools(withinBudget(agentActions(ctx), tracker, ctx), {
          ...(Array.isArray(options.tools) && { only: options.tools }),
          gate: () => tracker.toolCall(),
        });
  const result = streamText({
    model: modelFor(options.model),
    system: options.system,
    messages,
    tools,
    stopWhen: stepCountIs(options.maxSteps ?? 4),
    onStepFinish: () => tracker.nextCall(),
  });
  // The model's words are steered by whoever wrote to it: they may not ping anyone.
  return ctx.stream(withNotice(result.textStream, tracker, ctx), { neutralize: escapeText });
}
