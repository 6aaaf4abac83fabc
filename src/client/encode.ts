// Request encoding: path placeholders filled, strings sent as-is, every other value JSON-encoded.
import { pathParamNames } from "../api/endpoint.js";

/** Encodes one parameter value the way the server reads it. */
export function encodeValue(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Splits parameters into the filled-in path and the remaining encoded fields (undefined dropped). */
export function encodeRequest(
  path: string,
  params: Record<string, unknown>,
): { path: string; fields: URLSearchParams } {
  const used = new Set<string>();
  let filled = path;
  for (const name of pathParamNames(path)) {
    const value = params[name];
    if (value === undefined) throw new TypeError(`path parameter "${name}" of ${path} is missing`);
    filled = filled.replace(`{${name}}`, encodeURIComponent(encodeValue(value)));
    used.add(name);
  }
  const fields = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || used.has(key)) continue;
    fields.append(key, encodeValue(value));
  }
  return { path: filled, fields };
}
