// The key reference of bot.config.yaml as a Markdown table, generated from the JSON Schema (itself from zod).
import { configJsonSchema } from "./schema.js";

interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  default?: unknown;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
}

interface Row {
  key: string;
  types: string[];
  default: string;
  description: string;
}

const variants = (s: JsonSchema): JsonSchema[] => s.anyOf ?? s.oneOf ?? [];

/** A short type such as `string`, `"a" \| "b"`, `integer`, `string[]`, `object`. */
function typeOf(s: JsonSchema): string[] {
  if (s.const !== undefined) return [JSON.stringify(s.const)];
  if (s.enum) return s.enum.map((v) => JSON.stringify(v));
  const alternatives = variants(s).filter((v) => v.type !== undefined || v.const !== undefined);
  if (alternatives.length > 0) return [...new Set(alternatives.flatMap(typeOf))];
  if (s.type === "array") {
    const items = s.items ? typeOf(s.items) : ["any"];
    return [items.length > 1 ? `(${items.join(" | ")})[]` : `${items[0]}[]`];
  }
  if (s.type === "string" && s.format === "uri") return ["URL"];
  if (s.type === "object" && !s.properties) return ["map"];
  return [s.type ?? "any"];
}

/** Rows for `schema` at `key` and for every key below it (through unions, too). */
function rows(schema: JsonSchema, key: string, out: Map<string, Row>): void {
  const existing = out.get(key);
  const types = typeOf(schema);
  if (existing) {
    for (const t of types) if (!existing.types.includes(t)) existing.types.push(t);
    const more = schema.description ?? "";
    if (more && !existing.description.includes(more))
      existing.description = [existing.description, more].filter(Boolean).join(" ");
  } else {
    out.set(key, {
      key,
      types,
      default: schema.default === undefined ? "" : JSON.stringify(schema.default),
      description: schema.description ?? "",
    });
  }
  for (const [name, child] of Object.entries(schema.properties ?? {}))
    rows(child, key ? `${key}.${name}` : name, out);
  for (const variant of variants(schema)) if (variant.properties) rows(variant, key, out);
  // List entries with keys of their own (schedules, webhooks): `schedules[].cron`.
  for (const item of schema.items ? [schema.items, ...variants(schema.items)] : [])
    for (const [name, child] of Object.entries(item.properties ?? {}))
      rows(child, `${key}[].${name}`, out);
}

const cell = (text: string): string => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/**
 * The Markdown table of every key of bot.config.yaml: key, type, default, description.
 * `docs/config.md` embeds it between generated-section markers; `npm run docs:config` refreshes it.
 */
export function configReferenceTable(): string {
  const out = new Map<string, Row>();
  rows(configJsonSchema() as JsonSchema, "", out);
  out.delete("");
  const lines = ["| Key | Type | Default | Description |", "| --- | --- | --- | --- |"];
  for (const row of out.values()) {
    const def = row.default ? `\`${row.default}\`` : "";
    lines.push(
      `| \`${row.key}\` | ${cell(row.types.join(" | "))} | ${cell(def)} | ${cell(row.description)} |`,
    );
  }
  return lines.join("\n");
}

export const GENERATED_BEGIN =
  "<!-- BEGIN GENERATED: config reference (npm run docs:config; do not edit by hand) -->";
export const GENERATED_END = "<!-- END GENERATED: config reference -->";

/** `doc` with its generated section replaced by the current table. */
export function withReferenceTable(doc: string): string {
  const begin = doc.indexOf(GENERATED_BEGIN);
  const end = doc.indexOf(GENERATED_END);
  if (begin < 0 || end < begin)
    throw new Error("the document has no generated config reference section");
  return `${doc.slice(0, begin + GENERATED_BEGIN.length)}\n\n${configReferenceTable()}\n\n${doc.slice(end)}`;
}

/** The committed text of `bot.config.schema.json`. */
export const configJsonSchemaText = (): string =>
  `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
