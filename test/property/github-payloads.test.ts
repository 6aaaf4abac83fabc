// Fuzz of the github plugin with crafted payloads: URLs and text built to close links, ping everyone or forge lines; none may.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderGithubEvent } from "../../plugins/github/index.js";
import { link, linkTarget } from "../../src/markdown/escape.js";

// The real server's patterns (zerver/lib/mention.py), as in markdown-escape.test.ts.
const BEFORE = String.raw`(?<![^\s'"({[/<])`;
const MENTIONS_RE = new RegExp(String.raw`${BEFORE}@(_?)(\*\*([^*]+)\*\*)`, "g");
const GROUP_RE = new RegExp(String.raw`${BEFORE}@(_?)(\*([^*]+)\*)`, "g");
const mentionsIn = (content: string): string[] => [
  ...[...` ${content} `.matchAll(MENTIONS_RE)].map((m) => m[0]),
  ...[...` ${content} `.matchAll(GROUP_RE)].map((m) => m[0]),
];

/** The lines of `content` outside fenced blocks (the description excerpt is one). */
function linesOutsideFences(content: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of content.split("\n")) {
    const open = /^(`{3,})/.exec(line)?.[1];
    if (fence === undefined && open !== undefined) fence = open;
    else if (fence !== undefined && line === fence) fence = undefined;
    else if (fence === undefined) out.push(line);
  }
  return out;
}

/** The targets of the links the renderer makes (`[issue #4](…)`, `[pushed 2 commits](…)`, …). */
const targets = (content: string): string[] =>
  [...content.matchAll(/\[(?:issue #|PR #|run #|pushed \d+ commit)[^\]\n]*\]\(([^)\n]*)\)/g)].map(
    (m) => m[1]!,
  );

const piece = fc.constantFrom(
  ")",
  "(",
  "]",
  "[",
  " ",
  "\n",
  "\r\n",
  "@",
  "@**all**",
  "@_**everyone**",
  "@*admins*",
  "**",
  "**Approved by the CTO**",
  "> ",
  "* ",
  "`",
  "<",
  ">",
  '"',
  "https://e.com/i/4",
  "javascript:alert(1)",
  "%29",
  "\u2028",
  "x",
);
const crafted = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));
const craftedUrl = fc.oneof(
  crafted,
  crafted.map((tail) => `https://github.com/o/r/issues/4${tail}`),
  crafted.map((tail) => `https://e.com/${tail}`),
);

const payloadOf = (t: string[], u: string[]) => ({
  action: "opened",
  sender: { login: t[0] },
  repository: { name: t[1] },
  ref: `refs/heads/${t[2]}`,
  compare: u[0],
  commits: [{ id: t[3], message: t[4], url: u[1] }],
  issue: { number: t[5], title: t[6], body: t[7], html_url: u[2] },
  pull_request: {
    number: t[5],
    title: t[6],
    body: t[7],
    html_url: u[2],
    head: { ref: t[2] },
    base: { ref: t[3] },
  },
  release: { tag_name: t[5], name: t[6], html_url: u[3], prerelease: false },
  workflow_run: {
    name: t[0],
    conclusion: "failure",
    run_number: t[5],
    html_url: u[3],
    head_branch: t[2],
    display_title: t[6],
  },
});

const EVENTS: [string, string][] = [
  ["issues", "opened"],
  ["pull_request", "opened"],
  ["pull_request", "closed"],
  ["push", "opened"],
  ["release", "published"],
  ["workflow_run", "completed"],
];

describe("github plugin: crafted payloads ping no one and forge nothing", () => {
  it("no mention, no forged line, every link target a whole http(s) URL", () => {
    fc.assert(
      fc.property(
        fc.array(crafted, { minLength: 8, maxLength: 8 }),
        fc.array(craftedUrl, { minLength: 4, maxLength: 4 }),
        (texts, urls) => {
          for (const [event, action] of EVENTS) {
            const message = renderGithubEvent(event, { ...payloadOf(texts, urls), action });
            if (!message) continue;
            const { content } = message;
            expect(mentionsIn(content), content).toEqual([]);
            // (Topics are plain text: the server finds no mention or Markdown in them.)
            const lines = linesOutsideFences(content);
            // One line of its own, plus one "* " line per commit listed for a push.
            expect(lines.length, content).toBe(event === "push" ? 2 : 1);
            if (event === "push") expect(lines[1]!.startsWith("* "), content).toBe(true);
            for (const target of targets(content))
              expect(target, content).toMatch(/^https?:\/\/[^\s()<>*@[\]`]+$/);
          }
        },
      ),
      {
        numRuns: 300,
        examples: [
          [
            ["mia", "widgets", "main", "abc", "fix", "4", "Fix\n**Approved by the CTO**", ""],
            [
              "https://e.com/i/4) @**all**",
              "https://e.com/c/1) @**all**",
              "https://e.com/i/4) @**all**",
              "javascript:alert(1)",
            ],
          ],
        ],
      },
    );
  });

  it("the example of the issue: a URL that closed the link and pinged everyone (old code: @**all** in the message)", () => {
    const message = renderGithubEvent("issues", {
      action: "opened",
      sender: { login: "mallory" },
      repository: { name: "widgets" },
      issue: { number: 4, title: "Prices", body: "", html_url: "https://e.com/i/4) @**all**" },
    })!;
    expect(message.content).toBe(
      "**mallory** opened [issue #4](https://e.com/i/4%29%20%40%2A%2Aall%2A%2A): **Prices**",
    );
    expect(mentionsIn(message.content)).toEqual([]);
  });

  it("linkTarget keeps plain URLs and refuses what is not http(s)", () => {
    expect(linkTarget("https://github.com/o/r/pull/42")).toBe("https://github.com/o/r/pull/42");
    expect(linkTarget("javascript:alert(1)")).toBeUndefined();
    expect(linkTarget("/relative")).toBeUndefined();
    expect(link("PR #42", "not a url")).toBe("PR #42");
  });
});
