// Finding what a cassette sanitizes in JSON text as JSON.stringify writes it: one scan per concern over a whole batch.
//
// The recorder sanitizes a batch of JSON lines at once instead of walking every value: what is
// found here is found by native scans over the text, and only a hit costs JavaScript. JSON text
// is unambiguous enough for that: a key is a string right after `{` or `,` and right before `:`;
// an unescaped `"` always opens or closes a string; outside strings there are only punctuation,
// numbers and true/false/null. The one trap is an escape (`\n`, `\u0001`): a match must not start
// inside one, or replacing it would change what the string says (or make it invalid JSON).

/** A string field whose value is a person's name: `"full_name":"…"`, `"sender_full_name":"…"`. */
const NAME_FIELD = /[{,]"(?:sender_)?full_name":"((?:[^"\\]|\\.)*)"/g;
/** A realm's own URL: `"realm_url":"…"` (`realm_uri` until feature level 257). */
const REALM_URL_FIELD = /[{,]"realm_ur[il]":"((?:[^"\\]|\\.)*)"/g;
/** A string field holding what someone wrote (hashed when content hashing is on). */
const CONTENT_FIELD =
  /([{,]"(?:content|rendered_content|prev_content|prev_rendered_content)":)"((?:[^"\\]|\\.)*)"/g;
/** A string field that is a secret whatever it looks like (not an empty one). */
const SECRET_FIELD = /([{,]"(?:api_key|apiKey|password|authorization|otp)":)"(?:[^"\\]|\\.)+"/g;
/** A mention or quote of a person by name, inside JSON text: `@**Name**`, `@_**Name|12**`. */
const MENTION = /(@_?\*\*)((?:[^*|"\\]|\\.)+)((?:\|\d+)?\*\*)/g;
/** An email's domain, from just after its `@` (the same as `sanitize.ts`'s EMAIL). */
const DOMAIN = /[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/y;
/** What a name made only of these can be found outside strings as: numbers, true, false, null. */
const OUTSIDE_STRINGS = /^[-+.0-9{}[\],:a-z]+$/;
const LITERALS = ["true", "false", "null"];

/** A string's text as it stands inside JSON quotes. */
export const escapeJson = (text: string): string => JSON.stringify(text).slice(1, -1);

/** The string a JSON-escaped text stands for. */
export const unescapeJson = (escaped: string): string =>
  escaped.includes("\\") ? (JSON.parse(`"${escaped}"`) as string) : escaped;

/** How many characters at `at` belong to an escape begun before it (0: `at` starts a character of its own). */
export function insideEscape(text: string, at: number): number {
  let slashes = 0;
  while (at - slashes > 0 && text.charCodeAt(at - slashes - 1) === 92) slashes++;
  if (slashes % 2 === 1) return text.charCodeAt(at) === 117 /* u */ ? 5 : 1;
  // The hex digits of a `\uXXXX`.
  for (let back = 2; back <= 5 && at - back >= 0; back++)
    if (text.charCodeAt(at - back) === 92 && text.charCodeAt(at - back + 1) === 117) {
      let before = 0;
      while (at - back - before > 0 && text.charCodeAt(at - back - before - 1) === 92) before++;
      if (before % 2 === 0) return 6 - back;
    }
  return 0;
}

/** Whether the string that `at` lies in is a key (it ends right before a `:`). */
export function inKey(text: string, at: number): boolean {
  let i = at;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) return false;
    let slashes = 0;
    while (text.charCodeAt(quote - slashes - 1) === 92) slashes++;
    if (slashes % 2 === 0) return text.charCodeAt(quote + 1) === 58; /* : */
    i = quote + 1;
  }
}

/**
 * The key of the object member whose string value `at` lies in (`at` just inside its opening
 * quote or further), or undefined (an array's string, a key, outside strings).
 */
export function keyOfValueAt(text: string, at: number): string | undefined {
  const open = unescapedQuoteBefore(text, at);
  if (open < 2 || text.charCodeAt(open - 1) !== 58 /* : */ || text.charCodeAt(open - 2) !== 34)
    return undefined;
  const start = unescapedQuoteBefore(text, open - 2);
  return start === -1 ? undefined : text.slice(start + 1, open - 2);
}

/** The position of the last `"` before `at` that is not escaped, or -1. */
function unescapedQuoteBefore(text: string, at: number): number {
  let i = at;
  for (;;) {
    const quote = text.lastIndexOf('"', i - 1);
    if (quote === -1) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - slashes - 1) === 92) slashes++;
    if (slashes % 2 === 0) return quote;
    i = quote;
  }
}

/**
 * Whether a name could be found in JSON text outside strings, in a number or true/false/null
 * (`null`, `alse`, `1.5e`): such a name is replaced only where it is a whole string, never inside
 * text, so that replacing it cannot break the JSON.
 */
export function fitsOutsideStrings(name: string): boolean {
  if (!OUTSIDE_STRINGS.test(name)) return false;
  for (const run of name.match(/[a-z]+/g) ?? [])
    if (!LITERALS.some((literal) => literal.includes(run))) return false;
  return true;
}

/** Calls `found` with every realm URL field's value (unescaped), in order. */
export function eachRealmUrl(text: string, found: (url: string) => void): void {
  if (!text.includes('"realm_ur')) return;
  for (const match of text.matchAll(REALM_URL_FIELD)) found(unescapeJson(match[1]!));
}

/** Calls `found` with the name of every mention (`@**Name**`, `@_**Name|12**`), as escaped in the text. */
export function eachMentionName(text: string, found: (escapedName: string) => void): void {
  if (!text.includes("**")) return;
  for (const match of text.matchAll(MENTION)) found(match[2]!);
}

/** Calls `found` with every name field's value (unescaped), in order. */
export function eachNameField(text: string, found: (name: string) => void): void {
  if (!text.includes('full_name":"')) return;
  for (const match of text.matchAll(NAME_FIELD)) found(unescapeJson(match[1]!));
}

/** Every content field's value replaced by what `hash` makes of it (given and returning plain text). */
export function replaceContentFields(text: string, hash: (content: string) => string): string {
  if (!text.includes('content":"')) return text;
  return text.replace(
    CONTENT_FIELD,
    (_whole, key: string, value: string) => `${key}"${escapeJson(hash(unescapeJson(value)))}"`,
  );
}

/** Every non-empty secret field's value replaced by `[secret]`. */
export function replaceSecretFields(text: string): string {
  return text.replace(SECRET_FIELD, (_whole, key: string) => `${key}"[secret]"`);
}

/**
 * Every match of `pattern` (global; its alternatives escaped with `escapeJson`) replaced by
 * `alias(match)`, except where a match starts inside an escape.
 */
export function replaceLiterals(
  text: string,
  pattern: RegExp,
  alias: (match: string, at: number, text: string) => string,
): string {
  return text.replace(pattern, (match: string, at: number) =>
    insideEscape(text, at) > 0 ? match : alias(match, at, text),
  );
}

/**
 * Every email replaced by `alias(email)`: the same matches as the EMAIL pattern finds in the text
 * the JSON stands for, found from each `@` (rare in text) rather than tried at every letter.
 */
export function replaceEmails(text: string, alias: (email: string) => string): string {
  let at = text.indexOf("@");
  if (at === -1) return text;
  let out = "";
  let done = 0;
  while (at !== -1) {
    let start = at;
    while (start > done && isLocalPart(text.charCodeAt(start - 1))) start--;
    // `\nmia@…`: the `n` is the newline's, the email starts after it.
    if (start < at) start = Math.min(at, start + insideEscape(text, start));
    DOMAIN.lastIndex = at + 1;
    if (start < at && DOMAIN.test(text)) {
      const end = DOMAIN.lastIndex;
      out += text.slice(done, start) + alias(text.slice(start, end));
      done = end;
      at = text.indexOf("@", end);
    } else at = text.indexOf("@", at + 1);
  }
  return out + text.slice(done);
}

/** `[A-Za-z0-9._%+-]`, an email's local part. */
function isLocalPart(c: number): boolean {
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    (c >= 48 && c <= 57) ||
    c === 46 ||
    c === 95 ||
    c === 37 ||
    c === 43 ||
    c === 45
  );
}

/** Every mention whose name `alias` knows (given the name as escaped) replaced by the alias. */
export function replaceMentions(
  text: string,
  alias: (escapedName: string) => string | undefined,
): string {
  if (!text.includes("**")) return text;
  return text.replace(MENTION, (whole, open: string, name: string, close: string) => {
    const known = alias(name);
    return known ? `${open}${escapeJson(known)}${close}` : whole;
  });
}
