// Reading request parameters as the server does: raw strings or JSON text, checked against the wire schema.
import type { z } from "zod";
import { badRequest, missing } from "./errors.js";

/**
 * Decodes one raw parameter: a JSON value that fits the schema and is not a string wins
 * (numbers, booleans, lists, objects); otherwise the raw text is used as a string.
 */
function decodeValue(raw: string, schema: z.ZodType): { ok: true; value: unknown } | { ok: false } {
  let json: unknown;
  let isJson = false;
  try {
    json = JSON.parse(raw);
    isJson = typeof json !== "string";
  } catch {
    isJson = false;
  }
  if (isJson) {
    const parsed = schema.safeParse(json);
    if (parsed.success) return { ok: true, value: parsed.data };
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
}

export interface DecodedParams<T> {
  params: T;
  /** Names the endpoint does not know, for `ignored_parameters_unsupported`. */
  ignored: string[];
}

/**
 * Validates raw parameters against an endpoint's schema: a missing required one gives
 * `REQUEST_VARIABLE_MISSING` with `var_name`, a malformed one `BAD_REQUEST` naming it.
 */
export function decodeParams<P extends z.ZodObject>(
  schema: P,
  raw: Record<string, string>,
): DecodedParams<z.output<P>> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const values: Record<string, unknown> = {};
  for (const [name, fieldSchema] of Object.entries(shape)) {
    const text = raw[name];
    if (text === undefined) {
      const absent = fieldSchema.safeParse(undefined);
      if (!absent.success) throw missing(name);
      if (absent.data !== undefined) values[name] = absent.data;
      continue;
    }
    const decoded = decodeValue(text, fieldSchema);
    if (!decoded.ok) throw badRequest(`Invalid ${name}`);
    values[name] = decoded.value;
  }
  const whole = schema.safeParse(values);
  if (!whole.success) {
    const issue = whole.error.issues[0]!;
    throw badRequest(`Invalid ${issue.path.join(".") || "parameters"}: ${issue.message}`);
  }
  const ignored = Object.keys(raw).filter((name) => !(name in shape));
  return { params: whole.data, ignored };
}
