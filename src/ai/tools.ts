// Chat actions as AI SDK tools: what a model may do in the chat, through the bot's own checks.
import { tool, type ToolSet } from "ai";
import { z } from "zod";

/**
 * What the tools do, on behalf of the user whose message is being answered. The runtime builds
 * this from the message context (`agentActions(ctx)`): each call goes through the same
 * exactly-once journal, loop guard and permission checks as a plugin's own actions.
 */
export interface AgentActions {
  /** Whether the requesting user can see the message (a tool never acts on what they cannot). */
  canSee(messageId: number): Promise<boolean>;
  /** Makes model-written text harmless: no wildcard or user mentions, no code-span breakouts. */
  neutralize(text: string): string;
  react(emoji: string, messageId: number): Promise<void>;
  /** Posts in another topic of the current channel (or the DM, for direct conversations). */
  sendToTopic(topic: string, content: string): Promise<{ id: number }>;
  /** Schedules a reminder to the requesting user; `when` is a human time ("in 2 hours"). */
  remind(when: string, text: string): Promise<{ scheduledMessageId: number }>;
  /** Uploads a text file and returns its link. */
  upload(filename: string, content: string): Promise<{ url: string }>;
}

export type ChatToolName = "react" | "sendToTopic" | "remind" | "upload";

export interface ChatToolsOptions {
  /** Which tools to offer. Default: all. */
  only?: ChatToolName[];
  /**
   * Asked before every tool call: undefined lets it run, a reason refuses it (the model gets the
   * reason back). `answer()` passes its budget's count of tool calls.
   */
  gate?: (tool: ChatToolName) => string | undefined;
}

/** A refusal the model gets back as the tool's result, in words it can relay. */
const refused = (why: string) => ({ ok: false as const, error: why });

/**
 * The chat tools for `streamText`/`generateText`. A tool call never throws at the model: a
 * refusal (a message the user cannot see, a server error) comes back as `{ ok: false, error }`.
 *
 * @example
 * const result = streamText({ model, messages, tools: chatTools(agentActions(ctx)) });
 */
export function chatTools(actions: AgentActions, options: ChatToolsOptions = {}): ToolSet {
  const all = {
    react: tool({
      description: "Add an emoji reaction (by name, e.g. thumbs_up) to a message by its ID.",
      inputSchema: z.object({
        emoji: z.string().min(1).max(64),
        messageId: z.number().int().positive(),
      }),
      execute: async ({ emoji, messageId }) => {
        if (!(await actions.canSee(messageId)))
          return refused(`message ${messageId} is not one the requesting user can see`);
        return attempt(async () => {
          await actions.react(emoji, messageId);
          return { ok: true as const };
        });
      },
    }),
    sendToTopic: tool({
      description: "Post a message in another topic of the current channel.",
      inputSchema: z.object({
        topic: z.string().min(1).max(60),
        content: z.string().min(1).max(10_000),
      }),
      execute: async ({ topic, content }) =>
        attempt(async () => {
          const { id } = await actions.sendToTopic(
            actions.neutralize(topic),
            actions.neutralize(content),
          );
          return { ok: true as const, messageId: id };
        }),
    }),
    remind: tool({
      description:
        'Remind the requesting user of something later; `when` is a time like "in 2 hours" or "tomorrow 9am".',
      inputSchema: z.object({
        when: z.string().min(1).max(100),
        text: z.string().min(1).max(2_000),
      }),
      execute: async ({ when, text }) =>
        attempt(async () => {
          const { scheduledMessageId } = await actions.remind(when, actions.neutralize(text));
          return { ok: true as const, scheduledMessageId };
        }),
    }),
    upload: tool({
      description: "Upload a text file (a report, a snippet) and get a link to it.",
      inputSchema: z.object({
        filename: z
          .string()
          .min(1)
          .max(100)
          .regex(/^[\w.-]+$/, "letters, digits, dot, dash and underscore only"),
        content: z.string().max(1_000_000),
      }),
      execute: async ({ filename, content }) =>
        attempt(async () => ({
          ok: true as const,
          url: (await actions.upload(filename, content)).url,
        })),
    }),
  } satisfies Record<ChatToolName, unknown>;
  const names = options.only ?? (Object.keys(all) as ChatToolName[]);
  const { gate } = options;
  return Object.fromEntries(
    names.map((n) => {
      const chosen = all[n];
      if (!gate) return [n, chosen];
      const run = chosen.execute as unknown as (input: never, call: never) => Promise<unknown>;
      const gated = async (input: never, call: never) => {
        const why = gate(n);
        return why === undefined ? run(input, call) : refused(why);
      };
      return [n, { ...chosen, execute: gated }];
    }),
  ) as ToolSet;
}

/** Runs an action; a failure becomes a refusal the model can read instead of an exception. */
async function attempt<T>(action: () => Promise<T>): Promise<T | ReturnType<typeof refused>> {
  try {
    return await action();
  } catch (error) {
    return refused(error instanceof Error ? error.message : String(error));
  }
}
