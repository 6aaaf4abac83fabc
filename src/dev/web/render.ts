// A message's HTML as the console shows it: the server's rendering cut down to an allowlist by sanitize-html, emoji spans as Unicode.
import { createRequire } from "node:module";
import type SanitizeHtml from "sanitize-html";
import { unicodeCodeOfName } from "../../sandbox/emoji.js";

/** Tags the server's Markdown produces and the console keeps (everything else is unwrapped). */
const ALLOWED = [
  "a",
  "abbr",
  "b",
  "blockquote",
  "br",
  "code",
  "del",
  "details",
  "div",
  "em",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "i",
  "img",
  "li",
  "ol",
  "p",
  "pre",
  "s",
  "span",
  "strong",
  "sub",
  "summary",
  "sup",
  "table",
  "tbody",
  "td",
  "th",
  "thead",
  "time",
  "tr",
  "ul",
];
/**
 * Tags whose content goes too: scripts and styles, embedded documents, and the raw-text and
 * foreign-content elements (textarea, xmp, svg, math …) whose content a browser parses
 * differently from an HTML body.
 */
const DROPPED_WITH_CONTENT = [
  "script",
  "style",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "template",
  "noscript",
  "noembed",
  "noframes",
  "plaintext",
  "textarea",
  "xmp",
  "listing",
  "option",
  "select",
  "title",
  "svg",
  "math",
];
/** Attributes kept on any allowed tag. */
const GLOBAL_ATTRIBUTES = [
  "class",
  "title",
  "aria-label",
  "role",
  "data-user-id",
  "data-user-group-id",
  "data-stream-id",
  "data-code-language",
];
const TAG_ATTRIBUTES: Record<string, string[]> = {
  // target and rel are the console's own, set on outside links (see `checkedAttributes`).
  a: ["href", "target", "rel"],
  img: ["src", "alt", "width", "height"],
  time: ["datetime"],
  ol: ["start"],
  th: ["align"],
  td: ["align"],
};
/** Server paths the console fetches for the page (images of uploads, avatars, emoji, previews). */
export const SERVER_PATHS = /^\/(user_uploads|user_avatars|static|external_content|thumbnail)\//;

/** An image source the page may load: only the chat server's own paths, fetched through the console. */
function safeSrc(value: string): string | undefined {
  const trimmed = value.trim();
  if (SERVER_PATHS.test(trimmed) && !trimmed.includes("..")) return trimmed;
  if (/^data:image\/(png|gif|jpeg|webp);base64,[a-z0-9+/=]+$/i.test(trimmed)) return trimmed;
  return undefined;
}

/** The Unicode text of an emoji code (`1f44d`, `1f1fa-1f1f8`), or undefined when it is not one. */
export function emojiOfCode(code: string): string | undefined {
  if (!/^[0-9a-f]{1,6}(-[0-9a-f]{1,6})*$/i.test(code)) return undefined;
  const points = code.split("-").map((hex) => parseInt(hex, 16));
  if (points.some((p) => p > 0x10ffff)) return undefined;
  return String.fromCodePoint(...points);
}

/** The Unicode text of an emoji name the server knows (`thumbs_up`), or undefined. */
export function emojiOfName(name: string): string | undefined {
  const code = unicodeCodeOfName(name);
  return code === undefined ? undefined : emojiOfCode(code);
}

/** A URL as a browser reads its scheme: control characters and spaces inside it are skipped. */
const withoutControls = (url: string): string =>
  [...url].filter((c) => c.charCodeAt(0) > 0x20).join("");

/**
 * The console's rules for attribute values, on top of sanitize-html's name allowlist and scheme
 * check (which see the values decoded, as the browser will): images only from the server's
 * paths, `role` only `img`, sizes and list starts only numbers, and outside links (http(s),
 * mailto) opened in a new tab without the console as opener. Attributes come out in one order.
 */
function checkedAttributes(tag: string, attribs: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, raw] of Object.entries(attribs)) {
    let value: string | undefined = raw;
    if (name === "target" || name === "rel") value = undefined;
    else if (name === "href") value = raw.trim();
    else if (name === "src") value = tag === "img" ? safeSrc(raw) : undefined;
    else if (name === "role" && raw !== "img") value = undefined;
    else if ((name === "width" || name === "height" || name === "start") && !/^\d{1,5}$/.test(raw))
      value = undefined;
    if (value !== undefined) kept[name] = value;
  }
  if (tag === "a" && /^(https?|mailto):/i.test(withoutControls(kept.href ?? ""))) {
    kept.target = "_blank";
    kept.rel = "noopener noreferrer";
  }
  return kept;
}

/** The emoji a Unicode emoji span (`<span class="emoji emoji-1f44d">`) stands for, or undefined. */
function emojiOfSpan(attribs: Record<string, string>): string | undefined {
  const classes = attribs.class ?? "";
  if (!/(?:^|\s)emoji(?:\s|$)/.test(classes)) return undefined;
  const code = /(?:^|\s)emoji-([0-9a-f-]+)(?:\s|$)/i.exec(classes)?.[1];
  return code === undefined ? undefined : emojiOfCode(code);
}

const OPTIONS: SanitizeHtml.IOptions = {
  allowedTags: ALLOWED,
  allowedAttributes: { "*": GLOBAL_ATTRIBUTES, ...TAG_ATTRIBUTES },
  allowedSchemes: ["http", "https", "mailto"],
  // A link without a scheme stays on the chat server: `//host` (or `/\host`) would leave it.
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
  nonTextTags: DROPPED_WITH_CONTENT,
  // `<img>`, `<br>`, `<hr>` come out as `<img … />`: the same element to an HTML parser.
  selfClosing: ["img", "br", "hr"],
  parseStyleAttributes: false,
  transformTags: {
    // The span's text (`:thumbs_up:`) is replaced by the emoji itself.
    span: (tagName, attribs) => {
      const emoji = emojiOfSpan(attribs);
      return emoji === undefined ? { tagName, attribs } : { tagName, attribs, text: emoji };
    },
    "*": (tagName, attribs) => ({ tagName, attribs: checkedAttributes(tagName, attribs) }),
  },
};

let sanitizeHtml: typeof SanitizeHtml | undefined;

/**
 * sanitize-html and its HTML parser, loaded on the first message the console shows: `bot dev` in
 * the terminal never loads them. Required synchronously (the package is CommonJS).
 */
function loadSanitizeHtml(): typeof SanitizeHtml {
  sanitizeHtml ??= createRequire(import.meta.url)("sanitize-html") as typeof SanitizeHtml;
  return sanitizeHtml;
}

/**
 * Makes the server's rendered message HTML safe for the console page with sanitize-html: only the
 * tags and attributes of Zulip's Markdown survive, written out again from the parsed tree (so
 * nothing unbalanced or unquoted gets through), links only to http(s), mailto or the server's own
 * paths, images only from the server's paths (the console fetches them), and Unicode emoji spans
 * (`<span class="emoji emoji-1f44d">:thumbs_up:</span>`) show the emoji itself. `<time datetime>`
 * is kept for the page to show in the reader's time zone.
 *
 * @example
 * sanitizeMessageHtml('<p>ok <span class="emoji emoji-2705" title="check">:check:</span><script>x</script></p>');
 * // '<p>ok <span class="emoji emoji-2705" title="check">✅</span></p>'
 */
export function sanitizeMessageHtml(html: string): string {
  return loadSanitizeHtml()(html, OPTIONS);
}
