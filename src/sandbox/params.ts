// Reading request parameters as the server does: raw strings or JSON text, checked against the wire schema.
import type { z } from "zod";
import { badRequest, missing } from "./errors.js";

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The JSON value of `raw` when it is JSON other than a string, else undefined. A fast path:
 * most parameters are plain text (topics, content, names), and a thrown `JSON.parse` error per
 * parameter costs more than the whole request; only text that can be a JSON number, literal,
 * list or object is parsed.
 */
function nonStringJson(raw: string): { value: unknown } | undefined {
  const text = raw.trim();
  const first = text[0];
  if (first === "{" || first === "[") {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return undefined;
    }
  }
  if (text === "true") return { value: true };
  if (text === "false") return { value: false };
  if (text === "null") return { value: null };
  return JSON_NUMBER.test(text) ? { value: Number(text) } : undefined;
}

/**
 * Decodes one raw parameter: a JSON value that fits the schema and is not a string wins
 * (numbers, booleans, lists, objects); otherwise the raw text is used as a string.
 */
function decodeValue(raw: string, schema: z.ZodType): { ok: true; value: unknown } | { ok: false } {
  const json = nonStringJson(raw);
  if (json) {
    const parsed = schema.safeParse(json.value);
    if (parsed.success) return { ok: true, value: parsed.data };
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false };
}

/** One parameter of an endpoint, and what its schema does with the parameter absent, once known. */
interface Field {
  name: string;
  schema: z.ZodType;
  /** `missing`: required; `omitted`: optional without a default; undefined: not known yet, or a default. */
  whenAbsent?: "missing" | "omitted";
}

/** Each endpoint schema's fields, listed once rather than by `Object.entries` on every request. */
const fieldLists = new WeakMap<z.ZodObject, Field[]>();

function fieldsOf(schema: z.ZodObject): Field[] {
  let fields = fieldLists.get(schema);
  if (fields === undefined) {
    fields = Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, s]) => ({
      name,
      schema: s,
    }));
    fieldLists.set(schema, fields);
  }
  return fields;
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
  for (const field of fieldsOf(schema)) {
    const { name, schema: fieldSchema } = field;
    const text = raw[name];
    if (text === undefined) {
      // Settled once per field (its verdict on nothing does not change); a default is made anew.
      if (field.whenAbsent === "missing") throw missing(name);
      if (field.whenAbsent === "omitted") continue;
      const absent = fieldSchema.safeParse(undefined);
      if (!absent.success) {
        field.whenAbsent = "missing";
        throw missing(name);
      }
      if (absent.data === undefined) field.whenAbsent = "omitted";
      else values[name] = absent.data;
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
