// What answer() tells the model the sender said: a command's text without the command word.
import { afterEach, describe, expect, it } from "vitest";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import { definePlugin } from "../../src/bot/plugin.js";
import { answer, mockModel } from "../../src/ai/index.js";

/** The text of the prompt's last user message. */
function lastUser(prompt: LanguageModelV3Prompt): string {
  const m = [...prompt].reverse().find((p) => p.role === "user")!;
  if (typeof m.content === "string") return m.content;
  return (m.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("");
}

function agent(seen: string[]) {
  return definePlugin({
    name: "agent",
    setup(bot) {
      const model = () =>
        mockModel({ chunkDelayMs: 0, onCall: (prompt) => seen.push(lastUser(prompt)) });
      bot.command("ask", { description: "Ask the model" }, (ctx) =>
        answer(ctx, { model: model(), history: false, tools: false }),
      );
      bot.command("summarize", { description: "Sum up" }, (ctx) =>
        answer(ctx, { model: model(), history: false, tools: false }),
      );
    },
  });
}

describe("answer(): the text the model gets", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it("is what follows the command word, or the command word alone", async () => {
    const seen: string[] = [];
    t = await createTestBot({ plugins: [agent(seen)] });
    await t.send("!ask what is a topic?");
    await t.reply({ timeoutMs: 10_000 });
    await t.send("@**Topic Bot** summarize");
    await t.reply({ timeoutMs: 10_000 });
    expect(seen).toEqual(["Mia Member: what is a topic?", "Mia Member: summarize"]);
  }, 30_000);
});
