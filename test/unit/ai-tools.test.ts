import { describe, expect, it } from "vitest";
import { simulateReadableStream, stepCountIs, streamText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { chatTools, type AgentActions } from "../../src/ai/tools.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A model that first calls one tool, then answers with text. */
function modelCalling(toolName: string, input: unknown, answer: string) {
  const steps: LanguageModelV3StreamPart[][] = [
    [
      { type: "stream-start", warnings: [] },
      { type: "tool-call", toolCallId: "c1", toolName, input: JSON.stringify(input) },
      { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
    ],
    [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      ...answer.split(" ").map((w) => ({ type: "text-delta" as const, id: "t", delta: `${w} ` })),
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
    ],
  ];
  let step = 0;
  return new MockLanguageModelV3({
    doStream: async () => ({ stream: simulateReadableStream({ chunks: steps[step++]! }) }),
  });
}

function fakeActions(visible: number[]) {
  const done: string[] = [];
  const actions: AgentActions = {
    canSee: async (id) => visible.includes(id),
    neutralize: (text) => text.replace(/@\*\*/g, "@_**"),
    react: async (emoji, id) => void done.push(`react ${emoji} ${id}`),
    sendToTopic: async (topic, content) => (done.push(`send ${topic}: ${content}`), { id: 7 }),
    remind: async (when, text) => (done.push(`remind ${when}: ${text}`), { scheduledMessageId: 1 }),
    upload: async (name) => (done.push(`upload ${name}`), { url: `/user_uploads/${name}` }),
  };
  return { actions, done };
}

async function run(model: MockLanguageModelV3, actions: AgentActions) {
  const result = streamText({
    model,
    prompt: "hi",
    tools: chatTools(actions),
    stopWhen: stepCountIs(2),
  });
  let text = "";
  for await (const chunk of result.textStream) text += chunk;
  const steps = await result.steps;
  return {
    text: text.trim(),
    toolResults: steps.flatMap((s) => s.toolResults.map((r) => r.output)),
  };
}

describe("chatTools", () => {
  it("a tool call acts, and the model's text streams after it", async () => {
    const { actions, done } = fakeActions([5]);
    const out = await run(
      modelCalling("react", { emoji: "tada", messageId: 5 }, "Done, reacted."),
      actions,
    );
    expect(done).toEqual(["react tada 5"]);
    expect(out.toolResults).toEqual([{ ok: true }]);
    expect(out.text).toBe("Done, reacted.");
  });

  it("refuses to act on a message the requesting user cannot see", async () => {
    const { actions, done } = fakeActions([]);
    const out = await run(
      modelCalling("react", { emoji: "tada", messageId: 99 }, "Sorry."),
      actions,
    );
    expect(done).toEqual([]);
    expect(out.toolResults).toEqual([
      { ok: false, error: "message 99 is not one the requesting user can see" },
    ]);
  });

  it("neutralizes mentions the model writes before anything is posted", async () => {
    const { actions, done } = fakeActions([]);
    await run(
      modelCalling("sendToTopic", { topic: "news", content: "@**all** lunch" }, "Posted."),
      actions,
    );
    expect(done).toEqual(["send news: @_**all** lunch"]);
  });

  it("a failing action comes back to the model as a refusal, not an exception", async () => {
    const { actions } = fakeActions([]);
    actions.remind = async () => {
      throw new Error("remind: in 999 years is too far ahead");
    };
    const out = await run(
      modelCalling("remind", { when: "in 999 years", text: "x" }, "Could not."),
      actions,
    );
    expect(out.toolResults).toEqual([
      { ok: false, error: "remind: in 999 years is too far ahead" },
    ]);
  });

  it("offers only the tools asked for", () => {
    expect(Object.keys(chatTools(fakeActions([]).actions, { only: ["react"] }))).toEqual(["react"]);
  });
});
