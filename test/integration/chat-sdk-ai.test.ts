// A Chat SDK bot streaming an AI SDK answer (the `ai` package's MockLanguageModelV3 through streamText) through the Zulip adapter against the sandbox.
import { afterEach, describe, expect, it } from "vitest";
import { Chat } from "chat";
import { simulateReadableStream, streamText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { createTestBot, type TestBot } from "topicbot/testing";
import { chatSdkPlugin, MemoryChatState, ZulipAdapter } from "topicbot/chat-sdk";

const USAGE = {
  inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A mock model that answers each prompt with `answer`, a word per stream part. */
function mockModel(answer: string, prompts: string[]): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    doStream: async ({ prompt }) => {
      const last = prompt.at(-1);
      const parts = last?.role === "user" ? last.content : [];
      prompts.push(parts.map((p) => (p.type === "text" ? p.text : "")).join(""));
      const words = answer.split(" ");
      const chunks: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...words.map((w, i) => ({ type: "text-delta" as const, id: "t", delta: i ? ` ${w}` : w })),
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: USAGE },
      ];
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: 20 }) };
    },
  });
}

describe("a Chat SDK bot streaming an AI SDK answer", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it("posts one message in the thread and edits it to the model's whole answer", async () => {
    const prompts: string[] = [];
    const model = mockModel("Zulip threads are topics, and this answer streamed in.", prompts);
    const adapter = new ZulipAdapter();
    const chat = new Chat({
      adapters: { zulip: adapter },
      state: new MemoryChatState(),
      userName: "Topic Bot",
      logger: "silent",
    });
    // As Chat SDK's docs stream an AI SDK answer: the textStream goes to thread.post.
    chat.onNewMention(async (thread, message) => {
      await thread.subscribe();
      const result = streamText({ model, prompt: message.text });
      await thread.post(result.textStream);
    });
    chat.onSubscribedMessage(async (thread, message) => {
      const result = streamText({ model, prompt: message.text });
      await thread.post(result.textStream);
    });
    t = await createTestBot({ plugins: [chatSdkPlugin({ chat, adapter })] });

    await t.send("@**Topic Bot** what is a thread here?", { topic: "ai" });
    await t.settle();
    await t.send("and a channel?", { topic: "ai" });
    await t.settle();

    expect(prompts).toEqual(["@**Topic Bot** what is a thread here?", "and a channel?"]);
    // One message per answer, each edited to the model's whole text (no partial answer left over).
    const answers = t.botMessages().map((m) => t!.realm.message(m.id)!);
    expect(answers.map((m) => [m.topic, m.content])).toEqual([
      ["ai", "Zulip threads are topics, and this answer streamed in."],
      ["ai", "Zulip threads are topics, and this answer streamed in."],
    ]);
  });
});
