// Message rendering: Markdown to HTML with marked, raw HTML escaped, the chat's mention and `:emoji:` syntax as spans.
import { Marked, type TokenizerAndRendererExtension, type Tokens } from "marked";
import { SERVICE_EXTRA_EMOJI, unicodeCodeOfName } from "./emoji.js";
import { renderPlainMarkdown } from "./plainMarkdown.js";

export interface MentionTarget {
  userId: number;
  fullName: string;
}

/** `@**Name**`, `@**Name|id**`, `@**|id**` (the server's ID-only form), and their silent `@_` forms. */
const MENTION = /^(@_?)\*\*([^*|]*)(?:\|(\d+))?\*\*/;

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

function resolve(users: MentionLookup, name: string, id?: string): MentionTarget | undefined {
  return id ? users.byId(Number(id)) : users.byName(name.trim());
}

/** The users a message mentions with `@**Name**`, `@**Name|id**` or `@**|id**` (silent `@_**…**` excluded). */
export function findMentions(
  content: string,
  users: readonly MentionTarget[] | MentionLookup,
): Set<number> {
  const found = new Set<number>();
  if (!content.includes("@")) return found;
  const lookup = lookupOf(users);
  for (const match of content.matchAll(/(?<!_)@\*\*([^*|]*)(?:\|(\d+))?\*\*/g)) {
    const user = resolve(lookup, match[1]!, match[2]);
    if (user) found.add(user.userId);
  }
  return found;
}

// marked renders synchronously, so the users of the current render can live here for its duration.
const NO_ONE: MentionLookup = { byId: () => undefined, byName: () => undefined };
let currentUsers: MentionLookup = NO_ONE;

interface MentionToken extends Tokens.Generic {
  silent: boolean;
  target: MentionTarget;
}

const mention: TokenizerAndRendererExtension = {
  name: "mention",
  level: "inline",
  start: (src) => src.indexOf("@"),
  tokenizer(src) {
    if (!src.startsWith("@")) return undefined;
    const match = MENTION.exec(src);
    if (!match) return undefined;
    const target = resolve(currentUsers, match[2]!, match[3]);
    if (!target) return undefined;
    return { type: "mention", raw: match[0], silent: match[1] === "@_", target } as MentionToken;
  },
  renderer(token) {
    const { silent, target } = token as MentionToken;
    const cls = silent ? "user-mention silent" : "user-mention";
    return `<span class="${cls}" data-user-id="${target.userId}">${silent ? "" : "@"}${escapeHtml(target.fullName)}</span>`;
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

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  extensions: [mention, emoji],
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
