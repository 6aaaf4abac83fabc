// A message's HTML as the console shows it: the server's rendering kept, cut down to an allowlist, emoji spans as Unicode.
import { unicodeCodeOfName } from "../../sandbox/emoji.js";

/** Tags the server's Markdown produces and the console keeps (everything else is unwrapped). */
const ALLOWED = new Set([
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
]);
/** Tags whose content goes too (scripts, styles, embedded documents). */
const DROPPED_WITH_CONTENT = new Set([
  "script",
  "style",
  "iframe",
  "object",
  "embed",
  "template",
  "noscript",
  "textarea",
  "title",
  "svg",
  "math",
]);
const VOID = new Set(["br", "hr", "img"]);
/** Attributes kept on any allowed tag. */
const GLOBAL_ATTRIBUTES = new Set([
  "class",
  "title",
  "aria-label",
  "role",
  "data-user-id",
  "data-user-group-id",
  "data-stream-id",
  "data-code-language",
]);
const TAG_ATTRIBUTES: Record<string, readonly string[]> = {
  a: ["href"],
  img: ["src", "alt", "width", "height"],
  time: ["datetime"],
  ol: ["start"],
  th: ["align"],
  td: ["align"],
};
/** Server paths the console fetches for the page (images of uploads, avatars, emoji, previews). */
export const SERVER_PATHS = /^\/(user_uploads|user_avatars|static|external_content|thumbnail)\//;

const escapeText = (text: string): string =>
  text
    .replace(/&(?!(?:#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});)/gi, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");

const escapeAttribute = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
/** Decodes the character references of an attribute value (the common named ones and numeric). */
function decodeEntities(value: string): string {
  return value.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== "#") return NAMED[ref.toLowerCase()] ?? whole;
    const code =
      ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
  });
}

/** A link target the page may follow: http(s), mailto, or a path or fragment on the chat server. */
function safeHref(value: string): string | undefined {
  // Browsers ignore control characters and spaces inside a scheme (`java\tscript:`), and read `\` as `/`.
  const squashed = [...value]
    .filter((c) => c.charCodeAt(0) > 0x20 && c.charCodeAt(0) !== 0x7f)
    .join("")
    .replace(/\\/g, "/");
  if (/^(https?:|mailto:)/i.test(squashed)) return value.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(squashed) || squashed.startsWith("//")) return undefined;
  return value.trim();
}

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

const TAG =
  /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

/** The attributes of a tag the console keeps, checked and written out again. */
function keptAttributes(tag: string, source: string): { html: string; classes: string } {
  const allowed = TAG_ATTRIBUTES[tag] ?? [];
  let html = "";
  let classes = "";
  const seen = new Set<string>();
  for (const match of source.matchAll(ATTRIBUTE)) {
    const name = match[1]!.toLowerCase();
    if (seen.has(name) || (!GLOBAL_ATTRIBUTES.has(name) && !allowed.includes(name))) continue;
    seen.add(name);
    let value: string | undefined = decodeEntities(match[2] ?? match[3] ?? match[4] ?? "");
    if (name === "href") value = safeHref(value);
    else if (name === "src") value = safeSrc(value);
    else if (name === "role" && value !== "img") value = undefined;
    else if (
      (name === "width" || name === "height" || name === "start") &&
      !/^\d{1,5}$/.test(value)
    )
      value = undefined;
    if (value === undefined) continue;
    if (name === "class") classes = value;
    html += ` ${name}="${escapeAttribute(value)}"`;
  }
  if (tag === "a" && /\shref="(https?:|mailto:)/i.test(html))
    html += ' target="_blank" rel="noopener noreferrer"';
  return { html, classes };
}

/**
 * Makes the server's rendered message HTML safe for the console page: only the tags and
 * attributes of Zulip's Markdown survive, written out again (so nothing unbalanced or unquoted
 * gets through), links only to http(s), mailto or the server's own paths, images only from the
 * server's paths (the console fetches them), and Unicode emoji spans (`<span class="emoji
 * emoji-1f44d">:thumbs_up:</span>`) show the emoji itself. `<time datetime>` is kept for the
 * page to show in the reader's time zone.
 *
 * @example
 * sanitizeMessageHtml('<p>ok <span class="emoji emoji-2705" title="check">:check:</span><script>x</script></p>');
 * // '<p>ok <span class="emoji emoji-2705" title="check">✅</span></p>'
 */
export function sanitizeMessageHtml(html: string): string {
  let out = "";
  /** Open allowed tags; an emoji span notes the character its text becomes. */
  const open: { tag: string; emoji?: string; shown?: boolean }[] = [];
  let dropping: string | undefined;
  let at = 0;
  while (at < html.length) {
    const lt = html.indexOf("<", at);
    const text = html.slice(at, lt === -1 ? html.length : lt);
    if (text && !dropping) {
      const top = open.at(-1);
      if (top?.emoji !== undefined) {
        if (!top.shown) out += escapeText(top.emoji);
        top.shown = true;
      } else out += escapeText(text);
    }
    if (lt === -1) break;
    const rest = html.slice(lt);
    if (rest.startsWith("<!--")) {
      const end = html.indexOf("-->", lt + 4);
      at = end === -1 ? html.length : end + 3;
      continue;
    }
    const match = TAG.exec(rest);
    if (!match) {
      if (!dropping) out += "&lt;";
      at = lt + 1;
      continue;
    }
    at = lt + match[0].length;
    const closing = match[1] === "/";
    const tag = match[2]!.toLowerCase();
    if (dropping) {
      if (closing && tag === dropping) dropping = undefined;
      continue;
    }
    if (DROPPED_WITH_CONTENT.has(tag)) {
      if (!closing && !match[0].endsWith("/>")) dropping = tag;
      continue;
    }
    if (!ALLOWED.has(tag)) continue;
    if (closing) {
      const index = open.map((o) => o.tag).lastIndexOf(tag);
      if (index === -1) continue;
      // Closing an outer tag closes what is still open inside it, as a browser would.
      for (const inner of open.splice(index).reverse()) out += `</${inner.tag}>`;
      continue;
    }
    const { html: attributes, classes } = keptAttributes(tag, match[3] ?? "");
    out += `<${tag}${attributes}>`;
    if (VOID.has(tag)) continue;
    const code =
      tag === "span" && /(?:^|\s)emoji(?:\s|$)/.test(classes)
        ? /(?:^|\s)emoji-([0-9a-f-]+)(?:\s|$)/i.exec(classes)?.[1]
        : undefined;
    open.push({ tag, emoji: code === undefined ? undefined : emojiOfCode(code) });
  }
  for (const inner of open.reverse()) out += `</${inner.tag}>`;
  return out;
}
