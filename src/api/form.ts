// Form-encoded bodies (application/x-www-form-urlencoded) read into plain objects, as URLSearchParams reads them.

/**
 * A url-encoded form's fields, as `Object.fromEntries(new URLSearchParams(text))` gives them. A
 * fast path: URLSearchParams builds a list of pairs and `fromEntries` an object of them, a share
 * of a small request. Names and values are split at `&` and the first `=`, `+` read as a space
 * and %-escapes decoded; text whose escapes `decodeURIComponent` refuses (a stray `%`, bytes that
 * are no UTF-8), or a field named `__proto__`, goes through URLSearchParams, whose lenient
 * decoding keeps or replaces what it cannot read. A leading `?` is dropped, as URLSearchParams does.
 */
export function formFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  let from = text.startsWith("?") ? 1 : 0;
  while (from <= text.length) {
    let to = text.indexOf("&", from);
    if (to === -1) to = text.length;
    if (to > from) {
      const eq = text.indexOf("=", from);
      const split = eq === -1 || eq > to ? to : eq;
      const name = formPart(text, from, split);
      const value = split === to ? "" : formPart(text, split + 1, to);
      if (name === undefined || value === undefined || name === "__proto__")
        return Object.fromEntries(new URLSearchParams(text));
      fields[name] = value;
    }
    from = to + 1;
  }
  return fields;
}

/** `text[from, to)` with `+` as a space and %-escapes decoded; undefined when an escape is not UTF-8. */
function formPart(text: string, from: number, to: number): string | undefined {
  let part = text.slice(from, to);
  if (part.includes("+")) part = part.replaceAll("+", " ");
  if (!part.includes("%")) return part;
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** The fields of a request (a form's text, or URLSearchParams) as a plain object. */
export function fieldsOf(fields: string | URLSearchParams | undefined): Record<string, string> {
  if (fields === undefined) return {};
  if (typeof fields === "string") return formFields(fields);
  const out: Record<string, string> = {};
  for (const [k, v] of fields) out[k] = v;
  return out;
}
