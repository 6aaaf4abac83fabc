// Request encoding: path placeholders filled, strings sent as-is, every other value JSON-encoded.
import { pathParamNames } from "../api/endpoint.js";

/** Encodes one parameter value the way the server reads it. */
export function encodeValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/**
 * Splits parameters into the filled-in path and the remaining encoded fields (undefined dropped).
 * `names`: the path's placeholders, when the caller has them already (`pathParamNames(path)`).
 */
export function encodeRequest(
  path: string,
  params: Record<string, unknown>,
  names: readonly string[] = pathParamNames(path),
): { path: string; fields: URLSearchParams } {
  let filled = path;
  for (const name of names) {
    const value = params[name];
    if (value === undefined) throw new TypeError(`path parameter "${name}" of ${path} is missing`);
    filled = filled.replace(`{${name}}`, encodeURIComponent(encodeValue(value)));
  }
  const fields = new URLSearchParams();
  for (const key in params) {
    const value = params[key];
    if (value === undefined || (names.length > 0 && names.includes(key))) continue;
    fields.append(key, encodeValue(value));
  }
  return { path: filled, fields };
}
