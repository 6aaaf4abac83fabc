import { describe, expect, it } from "vitest";
import { conversationTest, type SavedMessage } from "../../src/dev/web/save-test.js";

const BOT = { userId: 1, fullName: "Topic Bot" };
const handles: Record<number, string> = { 8: "mia", 9: "gus" };

function saved(
  messages: SavedMessage[],
  where = { type: "channel" as const, channel: "general", topic: "dev" },
) {
  return conversationTest({
    where,
    messages,
    bot: BOT,
    handleOf: (id) => handles[id],
    plugins: [{ specifier: "./ping.ts" }, { specifier: "my-plugin", settings: { level: 2 } }],
    config: { prefix: "!" },
    savedAt: new Date("2026-12-02T00:00:00Z"),
  });
}

const m = (id: number, senderId: number, content: string, timestamp: number): SavedMessage => ({
  id,
  senderId,
  content,
  timestamp,
});

describe("save this conversation as a test", () => {
  it("makes dialog steps by speaker, silence as null, several answers as a list", () => {
    const { source, steps } = saved([
      m(1, 1, "an old bot message", 900),
      m(2, 8, "!ping", 1000),
      m(3, 1, "pong", 1001),
      m(4, 8, "just chatting", 1002),
      m(5, 8, "!two", 1003),
      m(6, 1, "one", 1003),
      m(7, 1, "two", 1004),
      m(8, 9, "!ping", 1005),
      m(9, 1, "pong", 1005),
      m(10, 77, "someone the harness cannot speak as", 1006),
    ]);
    expect(steps).toBe(4);
    expect(source).toContain(`now: "${new Date(1000_000).toISOString()}",`);
    expect(source).toContain('import * as plugin0 from "./ping.ts";');
    expect(source).toContain(
      'plugins: [pluginOf(plugin0), { plugin: pluginOf(plugin1), settings: {"level":2} }],',
    );
    expect(source).toContain(
      [
        "    await t.dialog(",
        "      [",
        '        ["!ping", "pong"],',
        '        ["just chatting", null],',
        '        ["!two", ["one", "two"]],',
        "      ],",
        '      { channel: "general", topic: "dev", as: "mia", timeoutMs: 10_000 },',
        "    );",
        "    await t.dialog(",
        "      [",
        '        ["!ping", "pong"],',
        "      ],",
        '      { channel: "general", topic: "dev", as: "gus", timeoutMs: 10_000 },',
      ].join("\n"),
    );
    expect(source).not.toContain("an old bot message");
    expect(source).not.toContain("someone the harness");
  });

  it("moves the clock over long pauses and awaits what the bot sent on its own later", () => {
    const { source } = saved(
      [
        m(1, 8, "!remind me in 2 hours to stretch", 1000),
        m(2, 1, "I'll remind you", 1000),
        m(3, 1, "Reminder: stretch", 1000 + 7200),
        m(4, 8, "thanks", 1000 + 7300),
      ],
      { type: "direct", others: [] } as never,
    );
    const body = source.slice(source.indexOf("it("));
    const order = [
      '["!remind me in 2 hours to stretch", "I\'ll remind you"]',
      "await t.clock.advance(7200000);",
      'await t.expectReply("Reminder: stretch"',
      "await t.clock.advance(100000);",
      '["thanks", null]',
    ].map((part) => body.indexOf(part));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(body).toContain('{ dm: true, as: "mia", timeoutMs: 10_000 }');
  });
});
