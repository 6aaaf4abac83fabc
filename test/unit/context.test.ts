import { describe, expect, expectTypeOf, it } from "vitest";
import { createMemoryStore } from "../../src/state/key-value/index.js";
import { MessageContextObject, type MessageContext } from "../../src/context/context.js";
import { takeAnswer } from "../../src/context/answers.js";
import { Dialogs } from "../../src/context/session.js";
import { address } from "../../src/dispatch/gate.js";
import { botAccount, type BotAccount } from "../../src/model/account.js";
import { definePlugin, type SentMessage } from "../../src/index.js";
import type { SendParams } from "../../src/api/messages.js";
import { recordingServices } from "../helpers/fixtures.js";
import { messageEvent } from "../helpers/in-memory-bot.js";
import type { Message } from "../../src/api/messages.js";

declare module "../../src/model/context-state.js" {
  /** What this test's middleware marks. */
  interface ContextState {
    seen?: boolean;
  }
}

const me = botAccount({ userId: 1000, email: "bot@example.com", fullName: "Helper" });

/** A context over services that record what would be sent. */
function contextFor(content: string, now = () => 0): { ctx: MessageContext; sent: SendParams[] } {
  const sent: SendParams[] = [];
  const services = recordingServices(me, sent, { now });
  const { message } = messageEvent(1, 7, "topic", content) as unknown as { message: Message };
  const ctx = new MessageContextObject({
    message,
    flags: [],
    addressing: address(content, { isDirect: false, bot: me, prefix: "!" }),
    services,
  });
  return { ctx, sent };
}

describe("the message context", () => {
  it("builds its parts on first use and keeps them", () => {
    const { ctx } = contextFor("!add 1 2");
    expect(ctx.text).toBe("add 1 2");
    expect(ctx.sender).toBe(ctx.sender);
    expect(ctx.conversation).toEqual({
      type: "channel",
      streamId: 1,
      channel: "general",
      topic: "topic",
    });
    ctx.state.seen = true;
    expect(ctx.state).toEqual({ seen: true });
  });

  it("tells the time from the bot's clock, not from the message", () => {
    const { ctx } = contextFor("hi", () => Date.parse("2030-01-02T03:04:05Z"));
    expect(ctx.now().toISOString()).toBe("2030-01-02T03:04:05.000Z");
  });

  it("sends a poll as /poll content, which the server turns into the widget", async () => {
    const { ctx, sent } = contextFor("!poll");
    const reply = await ctx.poll("Lunch?", ["Pizza", "Sushi\nor ramen"]);
    expect(reply.id).toBe(101);
    expect(sent[0]).toMatchObject({
      type: "channel",
      to: 1,
      topic: "topic",
      content: "/poll Lunch?\nPizza\nSushi or ramen",
    });
    // The server refuses `widget_content` polls from bots; it builds them from the content.
    expect(sent[0]!.widget_content).toBeUndefined();
  });

  it("never looks for a channel named like an email address", async () => {
    const { ctx, sent } = contextFor("!dm");
    await ctx.send({ to: "someone@example.com", content: "hi" });
    expect(sent[0]).toMatchObject({ type: "direct", to: ["someone@example.com"] });
    await expect(ctx.send({ to: "general", content: "hi" } as never)).rejects.toThrow(
      /needs a `topic`; for a direct message give `to` an email address/,
    );
  });

  it("answers 'no open question' without building a key when none is open", async () => {
    const { ctx } = contextFor("hello");
    const dialogs = new Dialogs<MessageContext>();
    expect(dialogs.mayHave()).toBe(false);
    expect(await takeAnswer(ctx, dialogs)).toBe(false);
  });

  it("types what handlers use (type test)", () => {
    const { ctx } = contextFor("x");
    expectTypeOf(ctx.now()).toEqualTypeOf<Date>();
    expectTypeOf(ctx.me).toEqualTypeOf<BotAccount>();
    expectTypeOf(ctx.me.mention).toEqualTypeOf<string>();
    expectTypeOf(ctx.reply).returns.resolves.toEqualTypeOf<SentMessage>();
    expectTypeOf<SentMessage["edit"]>().parameter(0).toEqualTypeOf<{
      content?: string;
      topic?: string;
      propagate?: "change_one" | "change_later" | "change_all";
    }>();
    expectTypeOf(ctx.react)
      .parameter(1)
      .toEqualTypeOf<{ message?: number | { id: number } } | undefined>();
    definePlugin({
      name: "typed",
      setup(bot) {
        expectTypeOf(bot.me).toEqualTypeOf<BotAccount>();
        expectTypeOf(bot.sharedStorage.has).returns.resolves.toEqualTypeOf<boolean>();
      },
    });
  });
});

describe("storage has()", () => {
  it("is true for a stored key and false after delete or expiry", async () => {
    let now = 0;
    const store = createMemoryStore(() => now).namespace("p");
    expect(await store.has("k")).toBe(false);
    await store.set("k", 0);
    expect(await store.has("k")).toBe(true);
    await store.set("t", "x", { ttlMs: 10 });
    now = 10;
    expect(await store.has("t")).toBe(false);
    await store.delete("k");
    expect(await store.has("k")).toBe(false);
  });
});
