// Cards' pure parts: the card's Markdown and zform, tokens and expiry, who may click, and poll tallies as the web client counts them.
import { describe, expect, expectTypeOf, it } from "vitest";
import { arg, definePlugin, type Actor, type ApprovalDecision, type Card } from "topicbot";
import {
  canonicalArgs,
  cardContent,
  cardWidget,
  checkChoices,
  clickText,
  expiryMs,
  newToken,
  TOKEN_PATTERN,
} from "../../src/cards/render.js";
import { admits, describeAllow } from "../../src/cards/permission.js";
import { pollTally, pollVoteOf } from "../../src/context/polls.js";
import type { Directory } from "../../src/context/directory.js";

const how = { prefix: "!", mention: "@_**Deploy Bot**" };
const choices = [
  { label: "Approve", action: "approve", emoji: "check" },
  { label: "Ship it", action: "ship", args: "  v1.2   --force " },
];

describe("a card as a message", () => {
  it("lists each choice as a typeable command and its chip, escaped, with the expiry as a time", () => {
    const text = cardContent(
      { heading: "Deploy @**all**\nnow?", body: "From *CI*.", choices },
      "k3f9x2",
      how,
      { expiresAt: Date.UTC(2026, 2, 3, 9) },
    );
    expect(text).toBe(
      [
        "**Deploy @\u200b**all** now?**",
        "From *CI*.",
        "",
        "Click a button, or type:",
        "- **Approve**: `!approve k3f9x2` (or react :check:)",
        "- **Ship it**: `!ship k3f9x2 v1.2 --force`",
        "",
        "Open until <time:2026-03-03T09:00:00.000Z>.",
      ].join("\n"),
    );
    // A bot without a prefix is addressed by its mention; a closed card offers nothing.
    expect(cardContent({ heading: "Q", choices }, "k3f9x2", { ...how, prefix: "" })).toContain(
      "@_**Deploy Bot** `approve k3f9x2`",
    );
    expect(cardContent({ heading: "Q", choices }, "t", how, { closedNote: "Done." })).toBe(
      "**Q**\n\nDone.",
    );
  });

  it("is a zform the server's check_widget_content accepts: type choices, a heading, string names and replies", () => {
    expect(cardWidget({ heading: "Deploy\nv1.2?", choices }, "k3f9x2")).toEqual({
      widget_type: "zform",
      extra_data: {
        type: "choices",
        heading: "Deploy v1.2?",
        choices: [
          {
            type: "multiple_choice",
            short_name: "Approve",
            long_name: "approve k3f9x2",
            reply: "approve k3f9x2",
          },
          {
            type: "multiple_choice",
            short_name: "Ship it",
            long_name: "ship k3f9x2 v1.2 --force",
            reply: "ship k3f9x2 v1.2 --force",
          },
        ],
      },
    });
    expect(clickText({ label: "x", action: "a" }, "tok")).toBe("a tok");
    expect(canonicalArgs(" a \t b ")).toBe("a b");
  });

  it("refuses choices it could not route: a two-word action, an empty label, a bad or repeated emoji", () => {
    expect(() => checkChoices([{ label: "A", action: "two words" }], "ctx.card")).toThrow(
      'ctx.card: choices[0].action "two words" must be one word',
    );
    expect(() => checkChoices([{ label: " \n", action: "a" }], "ctx.card")).toThrow(
      "label is empty",
    );
    expect(() => checkChoices([{ label: "A", action: "a", emoji: ":x:" }], "ctx.card")).toThrow(
      "is not an emoji name",
    );
    expect(() =>
      checkChoices(
        [
          { label: "A", action: "a", emoji: "x" },
          { label: "B", action: "b", emoji: "x" },
        ],
        "ctx.card",
      ),
    ).toThrow("two choices react with :x:");
  });

  it("makes short tokens of unambiguous letters, and reads expiries as durations", () => {
    const tokens = new Set(Array.from({ length: 200 }, newToken));
    for (const token of tokens) expect(token).toMatch(TOKEN_PATTERN);
    expect(tokens.size).toBeGreaterThan(190);
    expect(expiryMs("1d", "x")).toBe(86_400_000);
    expect(expiryMs(5000, "x")).toBe(5000);
    expect(() => expiryMs("soon", "ctx.approve")).toThrow(
      'ctx.approve: expires "soon" is not a positive duration',
    );
    expect(() => expiryMs(-1, "x")).toThrow("not a positive duration");
  });
});

describe("who may click", () => {
  const roles: Record<number, string> = { 1: "owner", 2: "member", 3: "administrator" };
  const directory = {
    user: async (id: number) => ({ userId: id, role: roles[id] }),
  } as unknown as Directory;
  const mia = { userId: 2, email: "Mia@Example.com" };

  it("admits anyone without rules, else whoever any rule admits", async () => {
    expect(await admits(undefined, mia, 9, directory)).toBe(true);
    expect(await admits({}, mia, 9, directory)).toBe(true);
    expect(await admits({ asker: true }, mia, 2, directory)).toBe(true);
    expect(await admits({ asker: true }, mia, 9, directory)).toBe(false);
    expect(await admits({ users: ["mia@example.com"] }, mia, 9, directory)).toBe(true);
    expect(await admits({ users: [7, 2] }, mia, 9, directory)).toBe(true);
    expect(await admits({ roles: ["owner"] }, mia, 9, directory)).toBe(false);
    expect(await admits({ roles: ["owner"] }, { userId: 1, email: "o@x" }, 9, directory)).toBe(
      true,
    );
  });

  it("says who in words", () => {
    expect(describeAllow(undefined)).toBe("everyone");
    expect(describeAllow({ users: ["a", "b"] })).toBe("the 2 listed people");
    expect(describeAllow({ asker: true, roles: ["administrator", "owner"], users: [1] })).toBe(
      "the person who asked, or administrators and owners, or one listed person",
    );
  });
});

describe("polls the bot reads", () => {
  const widget = (sender: number, data: unknown) => ({
    sender_id: sender,
    msg_type: "widget",
    content: JSON.stringify(data),
  });
  const poll = widget(10, {
    widget_type: "poll",
    extra_data: { question: "Lunch?", options: ["pizza", "soup"] },
  });

  it("counts as the web client's poll widget: votes set and taken back, options added, the author's question edits", () => {
    const tally = pollTally([
      poll,
      widget(1, { type: "vote", key: "canned,0", vote: 1 }),
      widget(2, { type: "vote", key: "canned,0", vote: 1 }),
      widget(2, { type: "vote", key: "canned,0", vote: -1 }),
      widget(2, { type: "new_option", option: "salad", idx: 1 }),
      widget(3, { type: "vote", key: "2,1", vote: 1 }),
      widget(3, { type: "vote", key: "canned,9", vote: 1 }),
      widget(3, { type: "question", question: "Hijacked?" }),
      widget(10, { type: "question", question: "Lunch today?" }),
      { sender_id: 4, msg_type: "widget", content: "not json" },
    ]);
    expect(tally).toEqual({
      question: "Lunch today?",
      options: [
        { key: "canned,0", text: "pizza", votes: 1, voters: [1] },
        { key: "canned,1", text: "soup", votes: 0, voters: [] },
        { key: "2,1", text: "salad", votes: 1, voters: [3] },
      ],
    });
    expect(pollTally([widget(1, { widget_type: "todo", extra_data: {} })])).toBeUndefined();
    expect(pollTally([])).toBeUndefined();
  });

  it("types a submessage event as a vote, and nothing else", () => {
    const event = {
      id: 1,
      type: "submessage" as const,
      msg_type: "widget",
      message_id: 5,
      submessage_id: 8,
      sender_id: 3,
      content: JSON.stringify({ type: "vote", key: "canned,1", vote: -1 }),
    };
    expect(pollVoteOf(event)).toEqual({
      messageId: 5,
      submessageId: 8,
      voterId: 3,
      key: "canned,1",
      vote: -1,
    });
    expect(
      pollVoteOf({ ...event, content: JSON.stringify({ type: "strike", key: "0,canned" }) }),
    ).toBeUndefined();
    expect(pollVoteOf({ ...event, content: "{" })).toBeUndefined();
    expect(pollVoteOf({ ...event, msg_type: "other" })).toBeUndefined();
  });
});

describe("types", () => {
  it("types an action's arguments from its spec, and ctx.actor, ctx.card and ctx.approve", () => {
    const plugin = definePlugin({
      name: "typed",
      setup(bot) {
        bot.action(
          "ship",
          { args: { version: arg.string(), count: arg.integer().optional() } },
          (ctx) => {
            expectTypeOf(ctx.action.args.version).toEqualTypeOf<string>();
            expectTypeOf(ctx.action.args.count).toEqualTypeOf<number | undefined>();
            expectTypeOf(ctx.command.args.version).toEqualTypeOf<string>();
            expectTypeOf(ctx.actor).toEqualTypeOf<Actor>();
            // @ts-expect-error: no such argument
            void ctx.action.args.nope;
          },
        );
        bot.command("ask", {}, async (ctx) => {
          expectTypeOf(await ctx.card({ heading: "Q", choices: [] })).toEqualTypeOf<Card>();
          expectTypeOf(await ctx.approve("Q")).toEqualTypeOf<ApprovalDecision>();
        });
      },
    });
    expect(plugin.name).toBe("typed");
  });
});
