import { describe, expect, it } from "vitest";
import { chatLine, parseInput, printable, rowsOf, type Place } from "../../src/dev/terminal.js";
import { storedConversationKey } from "../../src/dev/attribution.js";
import type { StoredMessage } from "../../src/sandbox/model.js";

const here: Place = { type: "channel", channel: "general", topic: "dev" };

describe("bot dev input", () => {
  it("switches topics, direct messages and speakers, and sends the rest", () => {
    expect(parseInput("#ops > deploy day", here)).toEqual({
      kind: "switch",
      place: { type: "channel", channel: "ops", topic: "deploy day" },
    });
    expect(parseInput("#ops", here)).toEqual({
      kind: "switch",
      place: { type: "channel", channel: "ops", topic: "dev" },
    });
    expect(parseInput("@bot", here)).toEqual({
      kind: "switch",
      place: { type: "direct", to: "bot" },
    });
    expect(parseInput("/as olivia", here)).toEqual({ kind: "as", handle: "olivia" });
    expect(parseInput("/quit", here)).toEqual({ kind: "quit" });
    expect(parseInput("/nope", here)).toEqual({
      kind: "error",
      message: "unknown command /nope; /help lists them",
    });
    expect(parseInput("   ", here)).toEqual({ kind: "nothing" });
    expect(parseInput("!remind #**general>x** in 1h hi", here)).toEqual({
      kind: "say",
      text: "!remind #**general>x** in 1h hi",
    });
    expect(parseInput("@bot hello", here)).toEqual({ kind: "say", text: "@bot hello" });
    expect(parseInput("#**general>x** is where", here)).toEqual({
      kind: "say",
      text: "#**general>x** is where",
    });
  });

  it("prints chat lines with the handler and indented continuation lines", () => {
    expect(chatLine("#general > dev", "Topic Bot", "a\nb", "ping › command ping")).toBe(
      "[#general > dev] Topic Bot (ping › command ping): a\n        b",
    );
  });

  it("keys stored messages as the runtime keys conversations", () => {
    const base = {
      id: 1,
      content: "",
      renderedContent: "",
      senderId: 1,
      recipientId: 1,
      timestamp: 0,
      client: "",
      flags: new Map(),
      reactions: [],
      submessages: [],
      edits: [],
    };
    expect(
      storedConversationKey({
        ...base,
        kind: "stream",
        streamId: 3,
        topic: "Lunch",
        recipients: [],
      } as StoredMessage),
    ).toBe("channel:3:lunch");
    expect(
      storedConversationKey({
        ...base,
        kind: "private",
        topic: "",
        recipients: [6, 4],
      } as StoredMessage),
    ).toBe("direct:4,6");
  });
});

describe("rowsOf", () => {
  it("counts the terminal rows a chat line takes, wrapped lines and empty ones included", () => {
    expect(rowsOf("pong", 80)).toBe(1);
    expect(rowsOf("a\n\nb", 80)).toBe(3);
    expect(rowsOf("x".repeat(81), 80)).toBe(2);
    expect(rowsOf("é".repeat(80), 80)).toBe(1);
  });
});

describe("printable", () => {
  it("shows the control characters of a chat message instead of sending them to the terminal", () => {
    const hostile = "hi\u001b]52;c;ZXZpbA==\u0007 \u001b[2J\rgone\u009b31m\ttab";
    const line = chatLine("#general > dev", "Adam\u001b[8m", hostile);
    expect(line).toBe(
      "[#general > dev] Adam\\x1b[8m: hi\\x1b]52;c;ZXZpbA==\\x07 \\x1b[2J\\x0dgone\\x9b31m\ttab",
    );
    expect(printable("a\nb")).toBe("a\nb");
  });
});
