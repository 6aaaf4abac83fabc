import { describe, expect, it } from "vitest";
import { address, stripLeadingMention } from "../../src/dispatch/gate.js";

const bot = { userId: 6, email: "bot-bot@sandbox.test", fullName: "Topic Bot" };

describe("stripLeadingMention", () => {
  it("accepts the bot's name, case-insensitively", () => {
    expect(stripLeadingMention("@**Topic Bot** ping", bot)).toBe("ping");
    expect(stripLeadingMention("@**topic bot**: ping", bot)).toBe("ping");
  });

  it("accepts the name with the bot's ID and checks the ID", () => {
    expect(stripLeadingMention("@**Topic Bot|6** ping", bot)).toBe("ping");
    expect(stripLeadingMention("@**Topic Bot|7** ping", bot)).toBeUndefined();
  });

  it("ignores other users, later mentions and silent text", () => {
    expect(stripLeadingMention("@**Mia Member** ping", bot)).toBeUndefined();
    expect(stripLeadingMention("hello @**Topic Bot**", bot)).toBeUndefined();
    expect(stripLeadingMention("ping", bot)).toBeUndefined();
  });

  it("keeps multi-line text after the mention", () => {
    expect(stripLeadingMention("@**Topic Bot** echo\nline two", bot)).toBe("echo\nline two");
  });
});

describe("address", () => {
  const opts = { bot, prefix: "!" };

  it("lets direct messages through with or without prefix", () => {
    expect(address("ping", { ...opts, isDirect: true })).toEqual({
      via: "direct",
      isMention: false,
      text: "ping",
    });
    expect(address("!ping", { ...opts, isDirect: true })).toMatchObject({
      via: "direct",
      text: "ping",
    });
  });

  it("lets leading mentions through", () => {
    expect(address("@**Topic Bot** ping", { ...opts, isDirect: false })).toEqual({
      via: "mention",
      isMention: true,
      text: "ping",
    });
  });

  it("lets the prefix through", () => {
    expect(address("!ping now", { ...opts, isDirect: false })).toEqual({
      via: "prefix",
      isMention: false,
      text: "ping now",
    });
  });

  it("supports multi-character prefixes", () => {
    expect(address("bot: ping", { bot, prefix: "bot:", isDirect: false })).toMatchObject({
      via: "prefix",
      text: "ping",
    });
  });

  it("does not address ordinary channel messages", () => {
    expect(address("just chatting", { ...opts, isDirect: false }).via).toBeNull();
    expect(address("so, !ping", { ...opts, isDirect: false }).via).toBeNull();
  });

  it("an empty prefix never matches", () => {
    expect(address("ping", { bot, prefix: "", isDirect: false }).via).toBeNull();
  });
});
