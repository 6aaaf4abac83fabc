import { afterEach, expect, it } from "vitest";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { createTestBot, type TestBot } from "topicbot/testing";
import { assistant } from "./index.js";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A mock model that answers "You said: <last user line>" in small chunks, and records its prompts. */
function echoModel() {
  const prompts: LanguageModelV3CallOptions["prompt"][] = [];
  const model = new MockLanguageModelV3({
    doStream: async (options) => {
      prompts.push(options.prompt);
      const last = options.prompt.at(-1)!;
      const said =
        last.role === "user" ? last.content.map((p) => ("text" in p ? p.text : "")).join("") : "";
      const words = `You said: ${said.replace(/^[^:]+: /, "")}`.split(" ");
      const chunks: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        ...words.map((w, i) => ({ type: "text-delta" as const, id: "t", delta: i ? ` ${w}` : w })),
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
      ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
  return { model, prompts };
}

let t: TestBot | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The content the bot's last message shows now (after its edits). */
async function shown(bot: TestBot): Promise<string> {
  await bot.settle();
  const { messages } = await bot.clientFor("mia").messages.list({
    anchor: "newest",
    num_before: 1,
    num_after: 0,
    narrow: [{ operator: "sender", operand: bot.sandbox.bot.userId }],
    apply_markdown: false,
  });
  return messages[0]!.content;
}

it("answers a mention by streaming, then follows the topic without mentions", async () => {
  const { model, prompts } = echoModel();
  t = await createTestBot({ plugins: [assistant(model)] });
  await t.send("@**Topic Bot** what is the plan?");
  await t.reply();
  expect(await shown(t)).toBe("You said: what is the plan?");
  // Followed now: no mention needed, and the model sees the topic so far.
  await t.send("and the deadline?");
  await t.reply();
  expect(await shown(t)).toBe("You said: and the deadline?");
  const roles = prompts[1]!.map((m) => m.role);
  expect(roles).toEqual(["system", "user", "assistant", "user"]);
});

it("stops following on !quiet", async () => {
  const { model } = echoModel();
  t = await createTestBot({ plugins: [assistant(model)] });
  await t.send("@**Topic Bot** hello");
  await t.reply();
  await t.send("!quiet");
  await t.expectReply(/stay quiet/);
  await t.send("anyone there?");
  await t.expectNoReply();
});
