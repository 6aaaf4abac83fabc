// Message rendering: Markdown to HTML with marked, raw HTML escaped, the chat's mention and `:emoji:` syntax as spans.
import { Marked, type TokenizerAndRendererExtension, type Tokens } from "marked";
import { SERVICE_EXTRA_EMOJI, unicodeCodeOfName } from "./emoji.js";
import { renderPlainMarkdown } from "./plainMarkdown.js";

export interface MentionTarget {
  userId: number;
  fullName: string;
}

/**
 * `@**Name**`, `@**Name|id**`, `@**|id**` (the server's ID-only form), and their silent `@_` forms,
 * as the server's MENTIONS_RE: only at the start or after a space, a quote, `(`, `{`, `[`, `/` or
 * `<`, so `.@**Name**` or `a@**Name**` is no mention.
 */
const MENTION = /^(@_?)\*\*([^*]+)\*\*/;
const MENTION_ANYWHERE = /(?<![^\s'"({[/<])@(_?)\*\*([^*]+)\*\*/g;
/** What may stand before a mention's `@` (besides nothing). */
const BEFORE_MENTION = /[\s'"({[/<]$/;
const CHANNEL_WILDCARDS = new Set(["all", "everyone", "channel", "stream"]);

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

/**
 * How a render finds the users its mentions name: by ID and by full name (case-insensitively),
 * active users only. The realm answers from its indexes; a plain list is searched.
 */
export interface MentionLookup {
  byId(userId: number): MentionTarget | undefined;
  byName(fullName: string): MentionTarget | undefined;
}

/** A list of users as a `MentionLookup` (tests, and renders that can mention no one). */
function listLookup(users: readonly MentionTarget[]): MentionLookup {
  return {
    byId: (userId) => users.find((u) => u.userId === userId),
    byName: (name) => {
      const wanted = name.toLowerCase();
      return users.find((u) => u.fullName.toLowerCase() === wanted);
    },
  };
}

const lookupOf = (users: readonly MentionTarget[] | MentionLookup): MentionLookup =>
  Array.isArray(users) ? listLookup(users) : (users as MentionLookup);

/**
 * What the text between `**` mentions, as the server's UserMentionPattern: a channel or topic
 * wildcard (exact, lower case), else a user by `Name|id` (the name, when given, must be that
 * user's exact full name), `|id`, or by name (case-insensitive); undefined when nobody.
 */
function resolve(
  users: MentionLookup,
  text: string,
): MentionTarget | "channel" | "topic" | undefined {
  if (CHANNEL_WILDCARDS.has(text)) return "channel";
  if (text === "topic") return "topic";
  const idSyntax = /^(.+)?\|(\d+)$/.exec(text);
  if (idSyntax) {
    const user = users.byId(Number(idSyntax[2]));
    if (user && idSyntax[1] !== undefined && user.fullName !== idSyntax[1]) return undefined;
    return user;
  }
  return users.byName(text);
}

/**
 * The users a message mentions (`@**Name**`, `@**Name|id**`, `@**|id**`): not silent `@_**…**`
 * ones, not wildcards, not a name that does not match its ID, not after a word character.
 */
export function findMentions(
  content: string,
  users: readonly MentionTarget[] | MentionLookup,
): Set<number> {
  const found = new Set<number>();
  if (!content.includes("@")) return found;
  const lookup = lookupOf(users);
  for (const match of content.matchAll(MENTION_ANYWHERE)) {
    if (match[1] === "_") continue;
    const user = resolve(lookup, match[2]!);
    if (typeof user === "object") found.add(user.userId);
  }
  return found;
}

/** Which wildcard mentions the content makes (silent ones excluded), as the server's rendering finds them. */
export function findWildcards(content: string): { channel: boolean; topic: boolean } {
  const found = { channel: false, topic: false };
  if (!content.includes("@")) return found;
  for (const match of content.matchAll(MENTION_ANYWHERE)) {
    if (match[1] === "_") continue;
    if (CHANNEL_WILDCARDS.has(match[2]!)) found.channel = true;
    else if (match[2] === "topic") found.topic = true;
  }
  return found;
}

// marked renders synchronously, so the users of the current render can live here for its duration.
const NO_ONE: MentionLookup = { byId: () => undefined, byName: () => undefined };
let currentUsers: MentionLookup = NO_ONE;

interface MentionToken extends Tokens.Generic {
  silent: boolean;
  text: string;
  target: MentionTarget | "channel" | "topic";
}

const mention: TokenizerAndRendererExtension = {
  name: "mention",
  level: "inline",
  start: (src) => src.indexOf("@"),
  tokenizer(src, tokens) {
    if (!src.startsWith("@")) return undefined;
    const before = tokens.at(-1)?.raw ?? "";
    if (before !== "" && !BEFORE_MENTION.test(before)) return undefined;
    const match = MENTION.exec(src);
    if (!match) return undefined;
    const target = resolve(currentUsers, match[2]!);
    if (!target) return undefined;
    return {
      type: "mention",
      raw: match[0],
      silent: match[1] === "@_",
      text: match[2]!,
      target,
    } as MentionToken;
  },
  renderer(token) {
    const { silent, text, target } = token as MentionToken;
    const name = typeof target === "object" ? target.fullName : text;
    const base = target === "topic" ? "topic-mention" : "user-mention";
    const id =
      target === "topic" ? "" : ` data-user-id="${target === "channel" ? "*" : target.userId}"`;
    return `<span class="${base}${silent ? " silent" : ""}"${id}>${silent ? "" : "@"}${escapeHtml(name)}</span>`;
  },
};

interface EmojiToken extends Tokens.Generic {
  name: string;
  code: string | undefined;
}

/** `:name:` as the server renders it: a span for a Unicode emoji, an image for the extra emoji. */
const emoji: TokenizerAndRendererExtension = {
  name: "emoji",
  level: "inline",
  // As the server's pattern, a `:` right after a word character starts no emoji (`a:b:`).
  start: (src) => (src.includes(":") ? src.search(/(?<!\w):[\w+-]+:/) : -1),
  tokenizer(src, tokens) {
    if (!src.startsWith(":")) return undefined;
    const match = /^:([\w+-]+):(?!\w)/.exec(src);
    if (!match || /\w$/.test(tokens.at(-1)?.raw ?? "")) return undefined;
    const name = match[1]!;
    const code = unicodeCodeOfName(name);
    if (code === undefined && !SERVICE_EXTRA_EMOJI.includes(name)) return undefined;
    return { type: "emoji", raw: match[0], name, code } as EmojiToken;
  },
  renderer(token) {
    const { name, code } = token as EmojiToken;
    if (code === undefined)
      return `<img alt=":${name}:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/${name}.png" title="${name}">`;
    const title = escapeHtml(name.replace(/_/g, " "));
    return `<span aria-label="${title}" class="emoji emoji-${code}" role="img" title="${title}">:${escapeHtml(name)}:</span>`;
  },
};

/**
 * The instant `<time:…>` names, as the server's Timestamp pattern reads it: an ISO date and time
 * (UTC when no offset is given) or a Unix timestamp in seconds; undefined when it is neither.
 */
export function timestampOf(text: string): Date | undefined {
  const trimmed = text.trim();
  if (/^-?\d+(\.\d+)?$/.test(trimmed)) {
    const date = new Date(Number(trimmed) * 1000);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed)) return undefined;
  const iso = trimmed.replace(" ", "T");
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(iso) || !iso.includes("T") ? iso : `${iso}Z`;
  const date = new Date(zoned.includes("T") ? zoned : `${zoned}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** The server's `datetime`: ISO in UTC with `Z`, fractions only when there are some (as Python's isoformat). */
const isoOf = (date: Date): string =>
  date
    .toISOString()
    .replace(/\.000Z$/, "Z")
    .replace(/\.(\d{3})Z$/, ".$1000Z");

interface TimeToken extends Tokens.Generic {
  text: string;
  date: Date | undefined;
}

/** `<time:2024-05-01T10:00:00Z>` as the server renders it: a `<time datetime>` holding the text as written. */
const timestamp: TokenizerAndRendererExtension = {
  name: "timestamp",
  level: "inline",
  start: (src) => src.indexOf("<time:"),
  tokenizer(src) {
    const match = /^<time:([^>]*?)>/.exec(src);
    if (!match) return undefined;
    return {
      type: "timestamp",
      raw: match[0],
      text: match[1]!,
      date: timestampOf(match[1]!),
    } as TimeToken;
  },
  renderer(token) {
    const { text, date } = token as TimeToken;
    if (!date)
      return `<span class="timestamp-error">Invalid time format: ${escapeHtml(text)}</span>`;
    return `<time datetime="${isoOf(date)}">${escapeHtml(text)}</time>`;
  },
};

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  extensions: [mention, emoji, timestamp],
  renderer: { html: ({ text }) => escapeHtml(text) },
});

/** Renders message Markdown to HTML with marked: the full renderer, for any text. */
export function renderWithMarked(
  content: string,
  users: readonly MentionTarget[] | MentionLookup = NO_ONE,
): string {
  currentUsers = lookupOf(users);
  try {
    return (marked.parse(content) as string).trim();
  } finally {
    currentUsers = NO_ONE;
  }
}

/** Renders message Markdown to HTML the way clients expect it: block HTML, mentions as spans. */
export function renderMarkdown(
  content: string,
  users: readonly MentionTarget[] | MentionLookup = NO_ONE,
): string {
  return renderPlainMarkdown(content) ?? renderWithMarked(content, users);
}
