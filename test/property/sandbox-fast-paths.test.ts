// The sandbox's fast paths give exactly what the slow paths they stand in for give: plain Markdown against marked, plain request targets against the URL parser, form bodies against URLSearchParams.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formFields } from "../../src/api/form.js";
import { requestTarget } from "../../src/sandbox/handler.js";
import { renderWithMarked } from "../../src/sandbox/markdown.js";
import { renderPlainMarkdown } from "../../src/sandbox/plainMarkdown.js";

const RUNS = { numRuns: Number(process.env.FAST_PATH_RUNS ?? 2000) };

/** Words in several scripts, with marks and digits. */
const word = fc.constantFrom(
  "message",
  "Hello",
  "x",
  "42",
  "3",
  "café",
  "cafe\u0301",
  "straße",
  "日本語",
  "Ελληνικά",
  "שלום",
  "𝐀",
  "ǅ",
  "²",
);

/** Text made of what plain chat looks like and of everything that starts Markdown. */
const anyText = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: word },
      { weight: 3, arbitrary: fc.constantFrom(" ", " ", "\n", "\n\n", "  ", "\t") },
      { weight: 3, arbitrary: fc.constantFrom("*", "**", "***", "_", "__", "~", "~~", "`") },
      {
        weight: 3,
        arbitrary: fc.constantFrom(..."!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~=\u00a0\u200b\r"),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "1. ",
          "1) ",
          "- ",
          "+ ",
          "* ",
          "# ",
          "> ",
          "---",
          "===",
          "    ",
          "www.example.com",
          "WWW.example.com",
          "https://example.com",
          "HTTP://x.y",
          "mailto:a",
          "a@b.co",
          ":wave:",
          ":+1:",
          "::",
          "&amp;",
          "&#65;",
          "<b>",
          "| a |",
        ),
      },
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(""));

/** Words, `*` runs and the punctuation the fast path allows, densely mixed: its edge cases. */
const nearPlain = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: word },
      { weight: 3, arbitrary: fc.constantFrom(" ", "\n", "*", "**", "***") },
      { weight: 3, arbitrary: fc.constantFrom(..."., ;:?!'\"()/-") },
    ),
    { maxLength: 16 },
  )
  .map((parts) => parts.join(""));

/** Lines of words and spaces, some words in `*` or `**` pairs: text the fast path must take. */
const plainText = fc
  .array(
    fc
      .array(
        fc.tuple(
          fc.constantFrom("", "", "", "(", '"', "'"),
          fc.constantFrom("", "", "*", "**"),
          word,
          fc.constantFrom("", "", "", ")", ",", ".", "!", "?", ":", '"', "'"),
          fc.constantFrom(" ", " ", ", ", ". ", " - ", "/"),
        ),
        { minLength: 1, maxLength: 6 },
      )
      .map((words) =>
        words
          .map(
            ([before, mark, w, after, gap], i) =>
              `${before}${mark}${w}${mark}${after}${i < words.length - 1 ? gap : ""}`,
          )
          .join(""),
      ),
    { minLength: 1, maxLength: 4 },
  )
  .map((lines) => lines.join("\n"))
  // A line starting `3. ` is an ordered list item, not plain text.
  .filter((text) => !/(^|\n)\d+[.)]/.test(text));

describe("plain Markdown fast path", () => {
  it("renders byte for byte as marked, or leaves the text to marked", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, nearPlain), (text) => {
        const fast = renderPlainMarkdown(text);
        if (fast !== undefined) expect(fast).toBe(renderWithMarked(text));
      }),
      RUNS,
    );
  });

  it("takes plain lines with emphasis and strong words, as marked renders them", () => {
    fc.assert(
      fc.property(plainText, (text) => {
        expect(renderPlainMarkdown(text)).toBe(renderWithMarked(text));
      }),
      RUNS,
    );
  });

  it.each([
    ["message 7 with **some** markdown", "<p>message 7 with <strong>some</strong> markdown</p>"],
    ['it\'s "quoted"\nnext *line*', "<p>it&#39;s &quot;quoted&quot;<br>next <em>line</em></p>"],
  ])("renders %j", (text, html) => {
    expect(renderPlainMarkdown(text)).toBe(html);
    expect(renderWithMarked(text)).toBe(html);
  });

  it.each([
    "1. item",
    "- item",
    "a\n\nb",
    "a\n---",
    "a**b**",
    "see www.example.com",
    "hi :wave:",
    // A table of one column: found by the property above (seed 153 of its 2,000-run checks).
    "message\n:-",
    ".\n:-:",
  ])("leaves %j to marked", (text) => {
    expect(renderPlainMarkdown(text)).toBeUndefined();
  });
});

/** Request targets: plain API paths and queries, and everything the URL parser rewrites. */
const target = fc
  .array(
    fc.oneof(
      fc.constantFrom("/", "/api/v1/messages", "/api/v1/users/me", "?", "&", "="),
      fc.constantFrom(..."azAZ09_-./\\?#%&=+ \"'<>`{}|^~[]:@!$()*,;\u00e9\u00ff\u0100\t\n"),
      fc.constantFrom("..", "%2e", "%2F", "%zz", "%20", "//", "narrow=%5B%5D", "anchor=newest"),
    ),
    { maxLength: 16 },
  )
  .map((parts) => `/${parts.join("")}`);

describe("plain request target fast path", () => {
  it("gives the path and parameters the URL parser gives", () => {
    fc.assert(
      fc.property(target, (raw) => {
        const base = "http://sandbox.invalid";
        if (!URL.canParse(raw, base)) {
          expect(() => requestTarget(raw)).toThrow("Malformed request path");
        } else {
          const url = new URL(raw, base);
          const fast = requestTarget(raw);
          expect(fast.pathname).toBe(url.pathname);
          expect([...fast.searchParams]).toEqual([...url.searchParams]);
        }
      }),
      RUNS,
    );
  });

  it("refuses a target the URL parser cannot read, naming it", () => {
    expect(() => requestTarget("//")).toThrow("Malformed request path");
  });
});

/** Form bodies: fields as clients encode them, and the separators, escapes and bytes that are not. */
const formBody = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom("type", "to", "content", "topic", "__proto__", "") },
      { weight: 3, arbitrary: fc.constantFrom("&", "=", "+", "&&", "==", "%20", "%2B", "%26") },
      {
        weight: 2,
        arbitrary: fc.constantFrom("%", "%z", "%zz", "%C3", "%C3%A9", "%E2%82%AC", "%ED%A0%80"),
      },
      { weight: 1, arbitrary: fc.constantFrom("%F0%9F%98%80", "%FF", "%00", "%C0%AF", "%e9") },
      { weight: 3, arbitrary: fc.constantFrom(..."abc019 *-._~é日\u00a0\n\t#?/") },
      {
        weight: 1,
        arbitrary: fc.string({ unit: "grapheme", maxLength: 3 }),
      },
      {
        weight: 1,
        arbitrary: fc.string({ maxLength: 4 }).map((text) => encodeURIComponent(text)),
      },
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(""));

describe("form body fast path", () => {
  it("gives the fields URLSearchParams gives", () => {
    fc.assert(
      fc.property(formBody, (text) => {
        const fields = formFields(text);
        const expected = Object.fromEntries(new URLSearchParams(text));
        expect(Object.entries(fields)).toEqual(Object.entries(expected));
        expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
      }),
      RUNS,
    );
  });

  it.each([
    [
      "type=channel&to=general&content=a+b%2Bc",
      { type: "channel", to: "general", content: "a b+c" },
    ],
    ["a=1&a=2&b", { a: "2", b: "" }],
    ["=x&&%zz=%", { "": "x", "%zz": "%" }],
    ["__proto__=1", JSON.parse('{"__proto__":"1"}') as Record<string, string>],
  ])("reads %j", (text, fields) => {
    expect(Object.entries(formFields(text))).toEqual(Object.entries(fields));
  });
});
