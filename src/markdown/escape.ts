// Writing chat Markdown from untrusted text: mentions made inert, code spans and fences that cannot be broken out of.

/**
 * Inserted after an `@` that would start a mention. The server's mention patterns need `*` (or
 * `_*`) right after the `@`, so one invisible character keeps the text readable and inert.
 * (The server does not honour backslash escapes, so `@\*\*all\*\*` would show its backslashes.)
 */
const BREAK = "\u200b";

/** An `@` that a mention (`@**…**`, `@_**…**`, `@*group*`, `@_*group*`) would start at. */
const MENTION_START = /@(?=_?\*)/g;
/** An `@` or `@_` at the very end, which would join a `*` that follows the text. */
const TRAILING_AT = /@_?$/;

/** Markdown the author vouches for: `md` inserts it as it is. Made by `raw`, `mention`, `silentMention`. */
export class TrustedMarkdown {
  constructor(readonly markdown: string) {}
  toString(): string {
    return this.markdown;
  }
}

/** Marks author-written Markdown (never user or payload text) to go into `md` unescaped. */
export const raw = (markdown: string): TrustedMarkdown => new TrustedMarkdown(markdown);

/**
 * Makes text from a user or a payload safe to place in a message as Markdown: wildcard, user and
 * group mentions (silent ones too) are shown as typed but notify nobody. Other formatting stays.
 * Idempotent: escaping twice changes nothing more.
 *
 * @example
 * escapeText("@**all** free pizza"); // "@\u200b**all** free pizza": shows "@**all**", pings nobody
 */
export function escapeText(text: string): string {
  return text.replace(MENTION_START, `@${BREAK}`).replace(TRAILING_AT, (at) => `${at}${BREAK}`);
}

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

/** How many characters `code` shows by default: a span echoes a word or a command, not a document. */
export const CODE_SPAN_MAX = 200;

/** `text` cut to `max` code points, ending with `…` when cut. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join("")}…`;
}

/**
 * An inline code span around any text: the fence is longer than any run of backticks inside, so
 * the text cannot close it; line breaks become spaces (a span is one line). Mentions are made inert
 * inside too: the server finds none in code, but plain-text views and the sandbox's check (which
 * reads the raw text, like the server's first pass) do not know code spans.
 *
 * Text longer than `max` characters (default `CODE_SPAN_MAX`, 200) is cut, ending with `…`: a
 * reply that echoes what a user typed stays short whatever they typed (a 9,000-character unknown
 * command would otherwise come back whole, split over two messages). Pass `Infinity` to keep all.
 *
 * @example
 * code("a`b"); // "``a`b``"
 */
export function code(text: string, max = CODE_SPAN_MAX): string {
  const body = escapeText(clip(text.replace(/\r?\n|\r/g, " "), max));
  if (body === "") return "` `";
  const fence = "`".repeat(longestRun(body, "`") + 1);
  const pad = body.startsWith("`") || body.endsWith("`") ? " " : "";
  return `${fence}${pad}${body}${pad}${fence}`;
}

/**
 * A fenced block (code, or `quote`, `spoiler`...) around any text: its fence is longer than any
 * run of backticks inside, so no line of the text can close it. Mentions are made inert (a quote
 * is rendered as Markdown).
 *
 * @example
 * codeBlock("```\nnot the end", "quote"); // "````quote\n```\nnot the end\n````"
 */
export function codeBlock(text: string, info = ""): string {
  const fence = "`".repeat(Math.max(3, longestRun(text, "`") + 1));
  return `${fence}${info}\n${escapeText(text.replace(/\r\n?/g, "\n"))}\n${fence}`;
}

/** A user a mention points at. The ID makes the mention exact even when names repeat. */
export interface MentionedUser {
  userId: number;
  fullName: string;
}

const mentionName = (fullName: string): string => fullName.replace(/[*|`]/g, "").trim();

/**
 * A mention of one user (`@**Name|id**`): notifies them. The `|id` form is never a wildcard,
 * whatever the name.
 *
 * @example
 * md`Thanks, ${mention(ctx.sender)}!`;
 */
export function mention(user: MentionedUser): TrustedMarkdown {
  return raw(`@**${mentionName(user.fullName)}|${user.userId}**`);
}

/** A silent mention (`@_**Name|id**`): shows the user as a mention without notifying them. */
export function silentMention(user: MentionedUser): TrustedMarkdown {
  return raw(`@_**${mentionName(user.fullName)}|${user.userId}**`);
}

/**
 * Whether author-written Markdown ends in mention syntax that a value would complete
 * (`@**`, `@_**`, `@*`, `@_*`): such a template mentions whoever the value names.
 */
export const opensMention = (before: string): boolean => /@_?\*{1,2}$/.test(before);

/**
 * Escapes a value placed right after the author's Markdown `before`: `escapeText`, and a value
 * after an `@` that starts with `*` or `_` (or is empty, when the template goes on with `**`) is
 * kept from completing a mention.
 */
export function escapeAfter(before: string, value: string): string {
  const text = escapeText(value);
  return /@_?$/.test(before) && /^(?:[_*]|$)/.test(text) ? BREAK + text : text;
}

/**
 * A tagged template for messages: every interpolated value is text from a user or a payload and
 * is escaped (`escapeText`); values made by `raw`, `mention` and `silentMention` go in as they
 * are; the author's own template text is Markdown. Returns a plain string.
 *
 * Throws when the template writes mention syntax around a value (`@**${name}**`): a name from a
 * user could be `all`; write `${mention(user)}` instead.
 *
 * @example
 * await ctx.reply(md`Reminder from **${ctx.sender.fullName}**: ${text}`);
 * // text "@**all** pizza" arrives as a visible "@**all** pizza" that pings nobody
 */
export function md(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0]!;
  values.forEach((value, i) => {
    const before = strings[i]!;
    if (opensMention(before))
      throw new TypeError(
        `md: the template writes a mention around a value ("${before.slice(-3)}\${…}"); use mention(user)`,
      );
    const text =
      value instanceof TrustedMarkdown ? value.markdown : escapeAfter(before, String(value));
    out += text + strings[i + 1]!;
  });
  return out;
}

/**
 * Text from a user or a payload placed inside one line of the author's Markdown (`**${title}**`):
 * `escapeText`, and line breaks become spaces, so the text cannot start a line of its own (a
 * forged `**Approved by …**` line, a list item, a quote).
 *
 * @example
 * inline("Fix\n**Approved by the CTO**"); // "Fix **Approved by the CTO**" (one line)
 */
export function inline(text: string): string {
  return escapeText(text.replace(/[\r\n\u2028\u2029\u0085]+/g, " "));
}

/** Characters a link target keeps only percent-encoded: any of them could end it or start Markdown. */
const UNSAFE_IN_TARGET = /[\s()[\]<>*@`"'\\{}|^_~!$]/g;

/**
 * A URL from a payload as a Markdown link target: an absolute `http:` or `https:` URL, with every
 * character that could close the link or start Markdown or a mention (parentheses, brackets,
 * spaces, `*`, `@`, quotes...) percent-encoded, so it cannot close the link and add
 * `@**all**` after it. Undefined for anything else (`javascript:`, relative, unparsable).
 *
 * @example
 * linkTarget("https://e.com/i/4) @**all**"); // "https://e.com/i/4%29%20%40%2A%2Aall%2A%2A"
 */
export function linkTarget(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return undefined;
  return parsed.href.replace(
    UNSAFE_IN_TARGET,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
}

/**
 * A link whose text and target come from a payload: `[text](target)`, the text one line with
 * brackets made round and mentions inert, the target from `linkTarget`; just the text when the
 * URL is not a safe `http(s)` URL.
 *
 * @example
 * link("issue #4", "https://github.com/o/r/issues/4"); // "[issue #4](https://github.com/o/r/issues/4)"
 */
export function link(text: string, url: string): string {
  const label = inline(text.replace(/\[/g, "(").replace(/\]/g, ")"));
  const target = linkTarget(url);
  return target === undefined ? label : `[${label}](${target})`;
}
