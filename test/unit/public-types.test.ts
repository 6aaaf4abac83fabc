// The public surface's types (checked by `tsc`, which `npm run typecheck` runs over test/): bot.on takes only event types the server sends, ctx.state what the bot declares.
import { describe, expect, expectTypeOf, it } from "vitest";
import type { AnyEvent, ContextState, EventOf, MessageContext, PluginApi } from "topicbot";
import * as topicbot from "topicbot";

declare module "topicbot" {
  interface ContextState {
    account?: { id: number; admin: boolean };
  }
}

describe("bot.on", () => {
  it("types the event by its type, and an event without a schema as AnyEvent", () => {
    const on = (bot: PluginApi) => {
      bot.on("reaction", (event) => {
        expectTypeOf(event).toEqualTypeOf<EventOf<"reaction">>();
        expectTypeOf(event.emoji_name).toEqualTypeOf<string>();
      });
      bot.on("alert_words", (event) => expectTypeOf(event).toEqualTypeOf<AnyEvent>());
    };
    expectTypeOf(on).toBeFunction();
  });

  it("does not compile with a misspelt event type", () => {
    const on = (bot: PluginApi) => {
      // @ts-expect-error "reactoin" is no event type the server sends
      bot.on("reactoin", () => undefined);
      // @ts-expect-error nor is any string
      bot.on("anything" as string, () => undefined);
    };
    expectTypeOf(on).toBeFunction();
  });
});

describe("ctx.state", () => {
  it("holds the keys the bot declared, typed, and refuses others", () => {
    expectTypeOf<MessageContext["state"]>().toEqualTypeOf<ContextState>();
    expectTypeOf<ContextState["account"]>().toEqualTypeOf<
      { id: number; admin: boolean } | undefined
    >();
    const read = (ctx: MessageContext) => {
      const admin: boolean | undefined = ctx.state.account?.admin;
      // @ts-expect-error "acount" is not declared
      void ctx.state.acount;
      return admin;
    };
    expectTypeOf(read).returns.toEqualTypeOf<boolean | undefined>();
  });
});

describe("the surface", () => {
  it("keeps internals out", () => {
    expectTypeOf(topicbot).not.toHaveProperty("escapeAfter");
    expectTypeOf(topicbot).not.toHaveProperty("opensMention");
    expectTypeOf(topicbot).not.toHaveProperty("CODE_SPAN_MAX");
    expectTypeOf(topicbot).not.toHaveProperty("MessageContextObject");
    expectTypeOf(topicbot).toHaveProperty("PluginError");
    for (const name of ["escapeAfter", "opensMention", "CODE_SPAN_MAX", "MessageContextObject"])
      expect(name in topicbot).toBe(false);
    expect(typeof topicbot.PluginError).toBe("function");
  });
});
