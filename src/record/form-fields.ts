// A request's fields as a cassette records them: the form (or URLSearchParams) decoded into a plain object.

/**
 * The fields of a form-encoded text (`a=1&b=x+y%21` is `{ a: "1", b: "x y!" }`), as decoding it
 * with URLSearchParams gives them, in a few slices: every reply's fields pass here. Undefined for
 * what this does not take (an empty field, one without `=`, a `%` that is not UTF-8): decode that
 * with URLSearchParams.
 */
export function decodeForm(form: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  if (form === "") return out;
  // A `+` is a space (a plus sign is `%2B`): one replacement for the whole form.
  const text = form.includes("+") ? form.replaceAll("+", " ") : form;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("&", start);
    if (end === -1) end = text.length;
    const eq = text.indexOf("=", start);
    if (eq === -1 || eq > end) return undefined;
    const key = decodePart(text.slice(start, eq));
    const value = decodePart(text.slice(eq + 1, end));
    if (key === undefined || value === undefined || key === "__proto__") return undefined;
    out[key] = value;
    start = end + 1;
  }
  return out;
}

function decodePart(part: string): string | undefined {
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
  if (typeof fields === "string") {
    const fast = decodeForm(fields);
    if (fast !== undefined) return fast;
  }
  const params = typeof fields === "string" ? new URLSearchParams(fields) : fields;
  const out: Record<string, string> = {};
  for (const [k, v] of params) out[k] = v;
  return out;
}
