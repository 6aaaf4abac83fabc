// Request encoding: path placeholders filled, strings sent as-is, every other value JSON-encoded, fields form-encoded.
import { pathParamNames } from "../api/endpoint.js";

/** Encodes one parameter value the way the server reads it. */
export function encodeValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * Each ASCII character as `URLSearchParams` writes it in a form: letters, digits and `*-._` as
 * they are, a space as `+`, the rest as `%XX`.
 */
const FORM_ASCII: readonly string[] = Array.from({ length: 128 }, (_, c) => {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9*\-._]/.test(ch)) return ch;
  return c === 0x20 ? "+" : `%${c.toString(16).toUpperCase().padStart(2, "0")}`;
});
/** What `encodeURIComponent` leaves (or encodes) unlike `URLSearchParams`. */
const URI_DIFFERENT = /%20|[!'()~]/g;
const uriToForm = (c: string): string => (c === "%20" ? "+" : FORM_ASCII[c.charCodeAt(0)]!);

/**
 * `s` as `URLSearchParams` writes it in `application/x-www-form-urlencoded` (the same bytes: a
 * space is `+`, only `*-._` and letters and digits are left as they are, a lone surrogate is
 * U+FFFD). ASCII goes through a table (a reply's fields are nearly always ASCII); from the first
 * other character on, through `encodeURIComponent`.
 *
 * @example
 * formEncode("echo 1!"); // "echo+1%21"
 */
export function formEncode(s: string): string {
  let out = "";
  let plainFrom = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) return out + s.slice(plainFrom, i) + formEncodeOther(s.slice(i));
    const encoded = FORM_ASCII[c]!;
    if (encoded.length === 1 && encoded !== "+") continue;
    out += s.slice(plainFrom, i) + encoded;
    plainFrom = i + 1;
  }
  return plainFrom === 0 ? s : out + s.slice(plainFrom);
}

/** `formEncode` for text that is not all ASCII. */
function formEncodeOther(s: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(s);
  } catch {
    // A lone surrogate, which `encodeURIComponent` refuses: `URLSearchParams` writes it as U+FFFD.
    return new URLSearchParams({ s }).toString().slice(2);
  }
  return encoded.replace(URI_DIFFERENT, uriToForm);
}

/**
 * Splits parameters into the filled-in path and the remaining fields (undefined dropped), encoded
 * as `application/x-www-form-urlencoded` text: a form body, or the query of a GET. Written as
 * text directly, not through a `URLSearchParams` (its entries, its serialization), because every
 * reply and every poll is encoded here.
 * `names`: the path's placeholders, when the caller has them already (`pathParamNames(path)`).
 */
export function encodeRequest(
  path: string,
  params: Record<string, unknown>,
  names: readonly string[] = pathParamNames(path),
): { path: string; form: string } {
  let filled = path;
  for (const name of names) {
    const value = params[name];
    if (value === undefined) throw new TypeError(`path parameter "${name}" of ${path} is missing`);
    filled = filled.replace(`{${name}}`, encodeURIComponent(encodeValue(value)));
  }
  let form = "";
  for (const key in params) {
    const value = params[key];
    if (value === undefined || (names.length > 0 && names.includes(key))) continue;
    form += `${form === "" ? "" : "&"}${formEncode(key)}=${formEncode(encodeValue(value))}`;
  }
  return { path: filled, form };
}
