// The fast path of message rendering: chat text with no Markdown beyond `*emphasis*` and `**strong**`, rendered without marked, byte for byte as marked renders it.

/**
 * Letters, marks, digits, spaces, line breaks and punctuation that start no Markdown construct on their own.
 * Everything else (`#`, `>`, `|`, `_`, `` ` ``, `~`, `<`, `&`, `[`, `\`, `@`, `=`, tabs, ...)
 * sends the text to marked. `*` is checked run by run below.
 */
const PLAIN_TEXT = /^[\p{L}\p{M}\p{N} \n.,;:?!'"()/*-]+$/u;
/** The ASCII part of `PLAIN_TEXT`, tested first: what it takes, PLAIN_TEXT takes, at less cost. */
const PLAIN_ASCII = /^[a-zA-Z0-9 \n.,;:?!'"()/*-]+$/;
/**
 * What a line may not start with: a list marker, a rule or setext underline, an ordered list
 * item, indentation, a table's delimiter row (`:-`: marked reads `a` over `:-` as a table of one
 * column, no pipes needed).
 */
const BLOCK_START = /^(?:[-+ ]|\d+[.)]|:-)/;
/** Anything marked would link or turn into an emoji: `http://…`, `www.…`, `:name:`. */
const INLINE_SPECIAL = /:\/\/|www\.|:[\w+-]*:/i;
/** What marked counts as neither space nor punctuation, among the plain characters. */
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
/** What may stand beside an opening or closing `*` run other than a word: a space, punctuation, the line's edge. */
const BESIDE_RUN = /^[ .,;:?!'"()/-]?$/;

/** The character (code point) starting at `at`, if any. */
function charAt(text: string, at: number): string | undefined {
  const code = text.codePointAt(at);
  return code === undefined ? undefined : String.fromCodePoint(code);
}

/** The character (code point) ending just before `at`, if any. */
function charBefore(text: string, at: number): string | undefined {
  const pair = at >= 2 ? text.codePointAt(at - 2)! : 0;
  return pair > 0xffff ? String.fromCodePoint(pair) : charAt(text, at - 1);
}

/** `"` and `'` as marked escapes them; text without either (most of it) is returned as it is, unscanned by a replace. */
const escapeQuotes = (text: string): string =>
  text.includes('"') || text.includes("'")
    ? text.replace(/["']/g, (c) => (c === '"' ? "&quot;" : "&#39;"))
    : text;

/**
 * Appends one line's HTML to `html`; false when its `*` runs are not plain pairs: each run one or two long,
 * opening (after a space, punctuation or the line's start, before a letter, mark or digit) and
 * closing (after one, before a space, punctuation or the line's end) in turn, each closer as long
 * as its opener.
 */
function renderLine(line: string, html: string[]): boolean {
  if (line.endsWith(" ") || BLOCK_START.test(line)) return false;
  let from = 0;
  let open = 0;
  for (let at = line.indexOf("*"); at !== -1; at = line.indexOf("*", from)) {
    let end = at;
    while (line[end] === "*") end++;
    const length = end - at;
    if (length > 2) return false;
    const before = charBefore(line, at);
    const after = charAt(line, end);
    const opens = BESIDE_RUN.test(before ?? "") && after !== undefined && WORD_CHAR.test(after);
    const closes = before !== undefined && WORD_CHAR.test(before) && BESIDE_RUN.test(after ?? "");
    const tag = length === 1 ? "em" : "strong";
    html.push(escapeQuotes(line.slice(from, at)));
    if (open === 0 && opens) {
      html.push(`<${tag}>`);
      open = length;
    } else if (open === length && closes) {
      html.push(`</${tag}>`);
      open = 0;
    } else return false;
    from = end;
  }
  if (open !== 0) return false;
  html.push(escapeQuotes(line.slice(from)));
  return true;
}

/**
 * Renders `content` as marked (GFM, line breaks on) renders it when it is one paragraph of plain
 * lines, or returns undefined for marked to do it. A fast path: marked lexes every message
 * through dozens of block and inline rules, several times the cost of the rest of a send, while
 * most chat and bot messages are a sentence or two of plain text. `test/property/
 * sandbox-markdown.test.ts` checks it against marked on generated text.
 */
export function renderPlainMarkdown(content: string): string | undefined {
  if (!(PLAIN_ASCII.test(content) || PLAIN_TEXT.test(content)) || INLINE_SPECIAL.test(content))
    return undefined;
  const lines = content.split("\n");
  // The pieces joined once at the end: the stored HTML is then one flat string, where `+=` left a
  // tree of concatenations and slices (about a fifth of a stored message's heap, kept for good).
  const html = ["<p>"];
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) html.push("<br>");
    const line = lines[i]!;
    if (line === "" || !renderLine(line, html)) return undefined;
  }
  html.push("</p>");
  return html.join("");
}
