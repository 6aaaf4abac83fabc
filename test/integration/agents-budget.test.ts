// Budgets of answer(): a guest's fan-out of 100 tool calls posts at most the budget and says so; a
// member's budget is higher; the prompt is bounded; the remind tool obeys the remind plugin's year.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createTestBot, type TestBot } from "../../src/testing/index.js";
import { definePlugin } from "../../src/bot/plugin.js";
import { answer, GUEST_BUDGET, mockModel, type BudgetOptions } from "../../src/ai/index.js";
import type { MockStep } from "../../src/ai/mock.js";
import type { StreamResult } from "../../src/context/stream.js";

const fanOut: MockStep[] = [
  {
    toolCalls: Array.from({ length: 100 }, (_, i) => ({
      toolName: "sendToTopic",
      input: { topic: `spam ${i}`, content: `hello ${i}` },
    })),
  },
  { text: "Done." },
];

function agent(
  steps: MockStep[],
  results: StreamResult[],
  extra: { budget?: BudgetOptions; onCall?: (p: LanguageModelV3Prompt) => void } = {},
) {
  return definePlugin({
    name: "agent",
    setup(bot) {
      bot.command("ask", { description: "Ask the model" }, async (ctx) => {
        const model = mockModel({
          chunkDelayMs: 0,
          steps,
          ...(extra.onCall && { onCall: extra.onCall }),
        });
        results.push(
          await answer(ctx, { model, maxSteps: 4, ...(extra.budget && { budget: extra.budget }) }),
        );
      });
    },
  });
}

/** The text of one prompt message, whatever its shape. */
function textOf(m: LanguageModelV3Prompt[number]): string {
  if (typeof m.content === "string") return m.content;
  return (m.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("");
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 800 && !done(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!done()) throw new Error("timed out waiting for the answer");
}

describe("answer() budgets", () => {
  let t: TestBot | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it("a guest's 100 sendToTopic calls post at most the guest budget, and the answer says so", async () => {
    const results: StreamResult[] = [];
    t = await createTestBot({ plugins: [agent(fanOut, results)] });
    await t.send("!ask post everywhere", { as: "gus", topic: "here" });
    await until(() => results.length > 0);
    await t.settle();
    const elsewhere = t.botMessages().filter((m) => m.topic !== "here");
    expect(elsewhere.length).toBeGreaterThan(0);
    expect(elsewhere.length).toBeLessThanOrEqual(
      Math.min(GUEST_BUDGET.topics, GUEST_BUDGET.messages),
    );
    expect(new Set(elsewhere.map((m) => m.topic)).size).toBeLessThanOrEqual(GUEST_BUDGET.topics);
    const answerText = t.realm.message(results[0]!.messageIds.at(-1)!)!.content;
    expect(answerText).toContain("Done.");
    expect(answerText).toMatch(/Stopped by this bot's limits: 99 of 100 actions refused/);
  }, 60_000);

  it("a member's budget is higher than a guest's, and configurable", async () => {
    const results: StreamResult[] = [];
    t = await createTestBot({
      plugins: [agent(fanOut, results, { budget: { member: { topics: 4, messages: 4 } } })],
    });
    await t.send("!ask post everywhere", { as: "mia", topic: "here" });
    await until(() => results.length > 0);
    await t.settle();
    const elsewhere = t.botMessages().filter((m) => m.topic !== "here");
    expect(elsewhere).toHaveLength(4);
    expect(t.realm.message(results[0]!.messageIds.at(-1)!)!.content).toMatch(
      /96 of 100 actions refused/,
    );
  }, 60_000);

  it("the user's message and the history are bounded in the prompt", async () => {
    const results: StreamResult[] = [];
    const prompts: LanguageModelV3Prompt[] = [];
    const budget = { member: { promptChars: 3_000, messageChars: 1_000 } };
    t = await createTestBot({
      plugins: [agent([{ text: "ok" }], results, { budget, onCall: (p) => prompts.push(p) })],
    });
    for (let i = 0; i < 5; i++) await t.send(`earlier ${i} ${"h".repeat(900)}`, { topic: "long" });
    await t.send(`!ask ${"é".repeat(189_000)}`, { topic: "long" });
    await until(() => results.length > 0);
    const chars = prompts[0]!.map(textOf).join("").length;
    expect(chars).toBeLessThanOrEqual(3_000);
    expect(textOf(prompts[0]!.at(-1)!)).toContain("was cut: too long");
    // The newest earlier messages are kept, the oldest trimmed.
    expect(prompts[0]!.length).toBeGreaterThan(1);
    expect(JSON.stringify(prompts[0])).toContain("earlier 4");
    expect(JSON.stringify(prompts[0])).not.toContain("earlier 0");
  }, 60_000);

  it("the remind tool refuses a time more than a year out, as the remind plugin does", async () => {
    const results: StreamResult[] = [];
    const steps: MockStep[] = [
      { toolCalls: [{ toolName: "remind", input: { when: "in 500 years", text: "far" } }] },
      { toolCalls: [{ toolName: "remind", input: { when: "in 2 hours", text: "near" } }] },
      { text: "Noted." },
    ];
    // Scheduling prints no DeprecationWarning (it did while ctx.schedule passed the old `zone`).
    const warnings = vi.spyOn(process, "emitWarning");
    t = await createTestBot({ plugins: [agent(steps, results)] });
    await t.send("!ask remind me", { topic: "r" });
    await until(() => results.length > 0);
    expect(warnings.mock.calls.map((c) => String(c[0]))).toEqual([]);
    warnings.mockRestore();
    const scheduled = [...t.sandbox.realm.scheduler.pending.values()];
    const contents = JSON.stringify(scheduled);
    expect(contents).toContain("near");
    expect(contents).not.toContain("far");
  }, 60_000);
});
