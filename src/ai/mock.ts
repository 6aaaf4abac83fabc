// A mock language model for trying an agent without a provider: the AI SDK's mock model, streaming a canned answer word by word.
import { simulateReadableStream, type LanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3Prompt, LanguageModelV3StreamPart } from "@ai-sdk/provider";

export interface MockModelOptions {
  /** Pause between two words, in ms, so the answer visibly streams. Default 60. */
  chunkDelayMs?: number;
  /**
   * The answer to give: from the last user message's text and how many earlier turns the model
   * was shown. Default: `(mock model) I see N earlier messages here. You said: …`.
   */
  answer?: (said: string, earlierTurns: number) => string;
  /**
   * A script, one entry per model call (tool rounds included): the tool calls that call makes
   * and/or its text. Past the script's end, calls answer as `answer` says. For tests of agents:
   * `steps: [{ toolCalls: [{ toolName: "remind", input: { when: "in 600 years", text: "x" } }] }]`.
   */
  steps?: MockStep[];
  /** Each call's prompt, as the model received it (for tests of what goes into a model call). */
  onCall?: (prompt: LanguageModelV3Prompt) => void;
}

/** One scripted model call. */
export interface MockStep {
  toolCalls?: { toolName: string; input: unknown }[];
  text?: string;
}

const USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

const defaultAnswer = (said: string, earlier: number): string =>
  `(mock model) I see ${earlier} earlier message${earlier === 1 ? "" : "s"} here. You said: ${said}`;

/** The last user message's text, without the `Name: ` the bridge puts in front. */
function lastUserText(prompt: LanguageModelV3Prompt): string {
  const last = [...prompt].reverse().find((m) => m.role === "user");
  if (!last || last.role !== "user") return "";
  const text = last.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  return text.replace(/^[^:\n]+: /, "");
}

/**
 * A language model that needs no provider, key or network: the AI SDK's `MockLanguageModelV3`,
 * streaming a canned answer word by word. `bot dev --mock-model` swaps it in for the model every
 * `answer(ctx, …)` call names, and examples/agent's bot.config.yaml runs on it.
 *
 * @example
 * import { answer, mockModel } from "topicbot/ai";
 * bot.followed((ctx) => answer(ctx, { model: mockModel() }));
 */
export function mockModel(options: MockModelOptions = {}): LanguageModel {
  const compose = options.answer ?? defaultAnswer;
  let call = 0;
  return new MockLanguageModelV3({
    provider: "topicbot-mock",
    modelId: "mock",
    doStream: async ({ prompt }) => {
      options.onCall?.(prompt);
      const step = options.steps?.[call++];
      if (step !== undefined) return { stream: scripted(step, call, options.chunkDelayMs ?? 0) };
      const earlier = prompt.filter((m) => m.role === "user" || m.role === "assistant").length - 1;
      const words = compose(lastUserText(prompt), Math.max(0, earlier)).split(" ");
      const chunks: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...words.map((w, i) => ({ type: "text-delta" as const, id: "t", delta: i ? ` ${w}` : w })),
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: USAGE },
      ];
      return {
        stream: simulateReadableStream({ chunks, chunkDelayInMs: options.chunkDelayMs ?? 60 }),
      };
    },
  });
}

/** The stream parts of one scripted call: its tool calls, then its text. */
function scripted(step: MockStep, call: number, chunkDelayInMs: number) {
  const calls = step.toolCalls ?? [];
  const chunks: LanguageModelV3StreamPart[] = [
    { type: "stream-start", warnings: [] },
    ...calls.map((c, i) => ({
      type: "tool-call" as const,
      toolCallId: `call-${call}-${i}`,
      toolName: c.toolName,
      input: JSON.stringify(c.input),
    })),
    ...(step.text === undefined
      ? []
      : [
          { type: "text-start" as const, id: "t" },
          { type: "text-delta" as const, id: "t", delta: step.text },
          { type: "text-end" as const, id: "t" },
        ]),
    {
      type: "finish",
      finishReason: { unified: calls.length > 0 ? "tool-calls" : "stop", raw: undefined },
      usage: USAGE,
    },
  ];
  return simulateReadableStream({ chunks, chunkDelayInMs });
}

/** The environment variable `bot dev --mock-model` sets: `answer` then uses `mockModel()`. */
export const MOCK_MODEL_ENV = "TOPICBOT_MOCK_MODEL";

/** The model `answer` uses: the mock under `bot dev --mock-model`, else the one given. */
export function modelFor(given: LanguageModel): LanguageModel {
  return process.env[MOCK_MODEL_ENV] === "1" ? mockModel() : given;
}
