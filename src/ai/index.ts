// topicbot/ai: the AI SDK bridge. A model's streamed answer into ctx.stream, ctx actions as tools.
import { stepCountIs, streamText, type LanguageModel, type ModelMessage } from "ai";
import type { MessageContext } from "../context/context.js";
import type { HistoryOptions, Turn } from "../context/history.js";
import type { StreamResult } from "../context/stream.js";
import { escapeText } from "../markdown/escape.js";
import { chatTools, type AgentActions, type ChatToolName } from "./tools.js";

import { modelFor } from "./mock.js";

export { chatTools } from "./tools.js";
export { mockModel, MOCK_MODEL_ENV, type MockModelOptions } from "./mock.js";
export type { AgentActions, ChatToolName, ChatToolsOptions } from "./tools.js";

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
    remind: (when, text) =>
      ctx.schedule(`Reminder for ${ctx.sender.fullName}: ${text}`, when, {
        to: [ctx.sender.userId],
      }),
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
  const turns = options.history === false ? [] : await ctx.history(options.history);
  const messages: ModelMessage[] = [
    ...toModelMessages(turns),
    { role: "user", content: `${ctx.sender.fullName}: ${ctx.text}` },
  ];
  const tools =
    options.tools === false
      ? undefined
      : chatTools(agentActions(ctx), Array.isArray(options.tools) ? { only: options.tools } : {});
  const result = streamText({
    model: modelFor(options.model),
    system: options.system,
    messages,
    tools,
    stopWhen: stepCountIs(options.maxSteps ?? 4),
  });
  // The model's words are steered by whoever wrote to it: they may not ping anyone.
  return ctx.stream(result.textStream, { neutralize: escapeText });
}
