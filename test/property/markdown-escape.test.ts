// Fuzz of the escaping layer: no generated input through a built-in renderer or template yields a mention the server would make.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CODE_SPAN_MAX,
  code,
  codeBlock,
  escapeText,
  md,
  mention,
  raw,
} from "../../src/markdown/escape.js";
import { compileTemplate } from "../../src/webhooks/template.js";
import { helpFor, unknownCommandReply } from "../../src/commands/help.js";
import { renderPoll, winner } from "../../plugins/poll/tally.js";
import { summary } from "../../plugins/standup/index.js";
import { renderGithubEvent } from "../../plugins/github/index.js";
import { parseReminder } from "../../plugins/remind/parse.js";
import { bind } from "../../src/commands/parse.js";
import { findMentions } from "../../src/sandbox/markdown.js";

/** The message of what `run` throws (usage replies are built from it), or nothing. */
function thrown(run: () => unknown): string[] {
  try {
    run();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

// The real server's patterns (zerver/lib/mention.py): a user, silent, wildcard or group mention
// starts wherever these match, whatever the rest of the Markdown around it.
const BEFORE = String.raw`(?<![^\s'"({[/<])`;
const MENTIONS_RE = new RegExp(String.raw`${BEFORE}@(_?)(\*\*([^*]+)\*\*)`, "g");
const USER_GROUP_MENTIONS_RE = new RegExp(String.raw`${BEFORE}@(_?)(\*([^*]+)\*)`, "g");

/** Every mention the server could find in `content` (silent ones too, and inside code). */
function mentionsIn(content: string): string[] {
  return [
    ...[...content.matchAll(MENTIONS_RE)].map((m) => m[0]),
    ...[...content.matchAll(USER_GROUP_MENTIONS_RE)].map((m) => m[0]),
  ];
}

/** Text built from the pieces mentions, code spans and fences are made of. */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        "@",
        "@_",
        "*",
        "**",
        "_",
        "`",
        "``",
        "```",
        "~~~",
        "all",
        "everyone",
        "channel",
        "stream",
        "topic",
        "Mia Member",
        "|",
        "12",
        " ",
        "\n",
        ">",
        "#",
        "(",
        "'",
        '"',
        "x",
      ),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 14 },
  )
  .map((parts) => parts.join(""));

const runs = { numRuns: 300 };

describe("escaping layer", () => {
  it("escapeText, code and codeBlock leave no mention the server would make", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(mentionsIn(` ${escapeText(text)} `)).toEqual([]);
        expect(mentionsIn(` ${code(text)} `)).toEqual([]);
        expect(mentionsIn(codeBlock(text, "quote"))).toEqual([]);
      }),
      runs,
    );
  });

  it("md leaves no mention across values and template text, whatever is around", () => {
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        const out = md`@${a}**${b}** from @_${b} (${a})@`;
        expect(mentionsIn(out)).toEqual([]);
      }),
      runs,
    );
  });

  it("a code span cannot be closed by its text: it renders as one span", () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const span = code(text);
        const fence = /^`+/.exec(span)![0];
        const inner = span.slice(fence.length, span.length - fence.length);
        // No run of backticks inside is as long as the fence.
        expect([...inner.matchAll(/`+/g)].every((m) => m[0].length !== fence.length)).toBe(true);
      }),
      runs,
    );
  });

  it("a code span shows at most CODE_SPAN_MAX characters unless told otherwise", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), (text) => {
        const span = code(text);
        const inner = span.replace(/^`+ ?| ?`+$/g, "").replace(/\u200b/g, "");
        expect([...inner].length).toBeLessThanOrEqual(CODE_SPAN_MAX);
      }),
      runs,
    );
    expect(code("x".repeat(9000))).toBe(`\`${"x".repeat(CODE_SPAN_MAX - 1)}…\``);
    expect(code("x".repeat(300), Infinity)).toBe(`\`${"x".repeat(300)}\``);
  });

  it("the built-in renderers (poll, stand-up, GitHub, help, unknown command) and config templates", () => {
    const template = compileTemplate(
      "Build **{{ payload.status }}** by @{{ payload.who }}: {{ payload.note }} `{{ payload.cmd | code }}`{{ payload.note | quote }}{{ payload.who | block }}",
      "route /ci",
      { markdown: true },
    );
    fc.assert(
      fc.property(hostile, hostile, hostile, (a, b, c) => {
        const poll = {
          question: a,
          options: [b, c],
          emoji: ["one", "two"],
          author: c,
          closed: false,
        };
        const outputs = [
          renderPoll(poll, [1, 1]),
          winner(poll, [2, 1]),
          summary({
            day: "2025-03-03",
            promptId: 1,
            closed: false,
            answers: [{ userId: 1, name: a, text: b }],
          }),
          unknownCommandReply(a, ["ping"], "!"),
          helpFor({ name: "x", plugin: "p", usage: a, description: b, examples: [c] }, "!"),
          template.render({ payload: { status: a, who: b, note: c, cmd: a } }),
          ...thrown(() => parseReminder(`${a} ${b}`, { now: 0, timeZone: "UTC" })),
          ...thrown(() => parseReminder(`me in 1 hour ${b}`, { now: Date.now(), timeZone: "UTC" })),
          ...thrown(() => bind(`x ${a}`, { positionals: [], options: [] })),
          ...thrown(() => bind(`--${b}`, { positionals: [], options: [] })),
        ];
        const payload = {
          sender: { login: a },
          repository: { name: b },
          issue: { number: 1, title: a, body: c, html_url: "https://x.test/1" },
          pull_request: { number: 2, title: b, body: a, head: { ref: c }, base: { ref: a } },
          release: { tag_name: a, name: b },
          workflow_run: { name: a, conclusion: "failure", head_branch: b, display_title: c },
          commits: [{ message: a, id: "abc", url: "" }],
          ref: `refs/heads/${c}`,
          action: "opened",
        };
        for (const event of ["issues", "pull_request", "push"]) {
          const message = renderGithubEvent(event, payload);
          if (message) outputs.push(message.content);
        }
        for (const kind of ["published", "completed"])
          for (const event of ["release", "workflow_run"]) {
            const message = renderGithubEvent(event, { ...payload, action: kind });
            if (message) outputs.push(message.content);
          }
        for (const out of outputs) expect(mentionsIn(` ${out} `)).toEqual([]);
      }),
      // The example: a command description "@*" made a group mention with a later line's "*".
      { numRuns: 150, examples: [["", "@*", "*"]] },
    );
  });

  it("keeps what the author vouches for: mention(user) and raw()", () => {
    expect(md`Hi ${mention({ userId: 7, fullName: "all" })} ${raw("**bold**")} ${"@**all**"}`).toBe(
      "Hi @**all|7** **bold** @\u200b**all**",
    );
    expect(() => md`@**${"all"}**`).toThrow(/use mention\(user\)/);
    expect(() =>
      compileTemplate("@**{{ payload.user }}**", "route /x", { markdown: true }),
    ).toThrow(/inside mention syntax/);
    expect(code("a`b")).toBe("``a`b``");
    expect(code("`x")).toBe("`` `x ``");
    expect(codeBlock("```\nend", "quote")).toBe("````quote\n```\nend\n````");
  });

  it("the sandbox finds the server's ID-only mention form, which the fuzz relies on", () => {
    const users = [{ userId: 5, fullName: "Mia Member" }];
    expect([...findMentions("hi @**|5**", users)]).toEqual([5]);
    expect([...findMentions("hi @\u200b**|5**", users)]).toEqual([]);
  });
});
