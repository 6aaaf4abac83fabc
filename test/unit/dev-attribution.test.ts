import { afterEach, describe, expect, it, vi } from "vitest";
import { Attribution } from "../../src/dev/attribution.js";
import type { MessageContext } from "../../src/context/context.js";

/** Just enough of a handler's context: where, which message, which handler, and two actions. */
function fakeContext(messageId: number, sentId: number): MessageContext {
  return {
    conversation: { type: "channel", streamId: 7, channel: "general", topic: "Dev" },
    message: { id: messageId },
    plugin: "ping",
    command: { name: "ping" },
    reply: async () => ({ id: sentId, ids: [sentId, sentId + 1] }),
    send: async () => ({ id: sentId, ids: [sentId] }),
    react: async () => undefined,
    upload: async () => ({ url: "/user_uploads/x" }),
    schedule: async () => ({ id: 1 }),
    report: async () => undefined,
    markTopicRead: async () => undefined,
  } as unknown as MessageContext;
}

describe("bot dev attribution", () => {
  afterEach(() => vi.useRealTimers());

  it("names the handler of a bot message by conversation while it runs, by ID after", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const attribution = new Attribution();
    const ctx = fakeContext(10, 50);
    let during: string | undefined;
    await attribution.middleware(ctx, async () => {
      await ctx.reply("pong");
      await ctx.react("tada");
      // An event that arrives before the send returned: known by its conversation.
      during = attribution.ofMessage({ id: 999, conversation: "channel:7:dev" });
    });
    expect(during).toBe("ping › command ping");

    // Later than the one-second fallback: the sent IDs and the handled message still tell.
    vi.setSystemTime(1_000_000 + 3_000);
    expect(attribution.ofMessage({ id: 50, conversation: "channel:7:dev" })).toBe(
      "ping › command ping",
    );
    expect(attribution.ofMessage({ id: 51, conversation: "channel:7:other" })).toBe(
      "ping › command ping",
    );
    expect(attribution.ofReaction(10)).toBe("ping › command ping");
    // Nothing else is attributed once the handler is over.
    expect(attribution.ofMessage({ id: 52, conversation: "channel:7:dev" })).toBeUndefined();
    expect(attribution.ofReaction(11)).toBeUndefined();

    // Labels do not last for ever.
    vi.setSystemTime(1_000_000 + 20_000);
    expect(attribution.ofMessage({ id: 50, conversation: "channel:7:dev" })).toBeUndefined();
  });

  it("keeps the asking handler's label on what it does with a ctx.ask answer (old code: fails)", async () => {
    vi.useFakeTimers({ now: 2_000_000 });
    const handled: { messageId: number; label: string }[] = [];
    const attribution = new Attribution((h) => handled.push(h));
    const ctx = fakeContext(20, 60);
    const answer = fakeContext(21, 70);
    (ctx as unknown as { ask: () => Promise<MessageContext> }).ask = async () => {
      // The developer takes a while to answer: longer than the one-second fallback.
      vi.setSystemTime(2_000_000 + 5_000);
      return answer;
    };
    await attribution.middleware(ctx, async () => {
      const got = await ctx.ask("Sure?");
      await got!.react("check");
      await got!.reply("done");
    });
    vi.setSystemTime(2_000_000 + 7_000);
    expect(attribution.ofReaction(21)).toBe("ping › command ping");
    expect(attribution.ofMessage({ id: 70, conversation: "channel:7:other" })).toBe(
      "ping › command ping",
    );
    expect(handled.map((h) => [h.messageId, h.label])).toEqual([
      [21, "ping › command ping"],
      [20, "ping › command ping"],
    ]);
  });
});
