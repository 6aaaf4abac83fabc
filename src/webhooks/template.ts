// Message templates: `{{ payload.field }}` and `{{ payload.list.0.name }}`, with errors that name the field.
import { code, codeBlock, escapeAfter, opensMention } from "../markdown/escape.js";

/** A template that does not parse, or a field missing at render time. Names where and which field. */
export class TemplateError extends Error {
  override readonly name = "TemplateError";
  /** Where the template comes from, e.g. `webhook route /hooks/ci`. */
  readonly where: string;
  /** The field path, e.g. `payload.build.status`; empty for a syntax error. */
  readonly field: string;

  constructor(where: string, field: string, problem: string) {
    super(`${where}: ${field ? `template field "${field}" ` : "template "}${problem}`);
    this.where = where;
    this.field = field;
  }
}

/** How a Markdown template writes a value: one line (default), a code span, or a fenced block. */
type Filter = "code" | "quote" | "block";

type Part = { text: string } | { field: string; path: string[]; filter?: Filter };

/** A parsed template. */
export interface Template {
  readonly source: string;
  /** Every field path the template reads, in order. */
  readonly fields: readonly string[];
  /** Fills the template; throws TemplateError naming the first missing field. */
  render(vars: Readonly<Record<string, unknown>>): string;
}

export interface TemplateOptions {
  /**
   * The template is message Markdown: values are escaped (`escapeText`: mentions inert) and written
   * on one line (line breaks become spaces, so a value cannot write lines that look like the
   * template's own); `{{ x | code }}` writes a value as a code span it cannot break out of;
   * `{{ x | quote }}` and `{{ x | block }}` keep its lines inside a fenced quote or code block on
   * lines of its own; mention syntax around a placeholder (`@**{{ payload.user }}**`) is refused.
   * Default false (plain text, such as a topic).
   */
  markdown?: boolean;
}

const FIELD = /^[A-Za-z_][\w-]*(?:\.[\w-]+)*$/;
/** `payload.cmd | code`: a field and a filter. */
const FILTERED = /^(.*?)\s*\|\s*(code|quote|block)$/;

/** Every kind of line break Markdown or a chat client may start a new line at. */
const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029\u0085\v\f]/g;

/** A value on one line: a payload cannot forge a line of the template's own (an "Approved by" line). */
const oneLine = (value: string): string => value.replace(LINE_BREAKS, " ");

/** A fenced block starts and ends a line: the text before it ends with a line break, and so does the block. */
function onOwnLines(before: string, block: string): string {
  return `${before === "" || before.endsWith("\n") ? "" : "\n"}${block}\n`;
}

/**
 * Turns a value into message text: strings as they are, other scalars printed, structures as
 * JSON. A structure nested too deeply to print (a payload of 100,000 nested lists) is the
 * sender's mistake, named with its field, not a stack overflow and a 500.
 */
function show(value: unknown, where: string, path: string[]): string {
  if (value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint")
    return String(value);
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new TemplateError(where, path.join("."), "is nested too deeply to print");
  }
}

/** Walks `path` through `vars`; reports the deepest existing prefix when a step is missing. */
function lookup(vars: Readonly<Record<string, unknown>>, path: string[], where: string): unknown {
  let value: unknown = vars;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const container = value;
    const found =
      container !== null &&
      typeof container === "object" &&
      Object.prototype.hasOwnProperty.call(container, key);
    if (!found) {
      const field = path.join(".");
      const parent = path.slice(0, i).join(".");
      const why =
        i === 0
          ? `is missing (known names: ${Object.keys(vars).join(", ") || "none"})`
          : container === null || typeof container !== "object"
            ? `is missing (${parent} is ${container === null ? "null" : typeof container}, not an object or list)`
            : Array.isArray(container)
              ? `is missing (${parent} has ${container.length} item${container.length === 1 ? "" : "s"})`
              : `is missing (${parent} has no key "${key}")`;
      throw new TemplateError(where, field, why);
    }
    value = (container as Record<string, unknown>)[key];
  }
  if (value === undefined) throw new TemplateError(where, path.join("."), "is missing");
  return value;
}

/**
 * Parses a template. `{{ name.path }}` inserts a value (list items by index: `list.0.name`);
 * `{{{{` writes a literal `{{`. Throws TemplateError for an unclosed or malformed placeholder.
 *
 * @example
 * const t = compileTemplate("Build {{ payload.build.status }} on {{ payload.branch }}", "route /ci");
 * t.render({ payload: { build: { status: "passed" }, branch: "main" } }); // "Build passed on main"
 */
export function compileTemplate(
  source: string,
  where = "template",
  options: TemplateOptions = {},
): Template {
  const parts: Part[] = [];
  let rest = source;
  let text = "";
  while (rest.length > 0) {
    const open = rest.indexOf("{{");
    if (open === -1) {
      text += rest;
      break;
    }
    text += rest.slice(0, open);
    if (rest.startsWith("{{{{", open)) {
      text += "{{";
      rest = rest.slice(open + 4);
      continue;
    }
    const close = rest.indexOf("}}", open + 2);
    if (close === -1)
      throw new TemplateError(
        where,
        "",
        `has an unclosed "{{" at character ${source.length - rest.length + open + 1}`,
      );
    const inner = rest.slice(open + 2, close).trim();
    const filtered = options.markdown ? FILTERED.exec(inner) : null;
    const field = filtered ? filtered[1]! : inner;
    if (!FIELD.test(field))
      throw new TemplateError(
        where,
        "",
        `has a malformed placeholder "{{${rest.slice(open + 2, close)}}}" (expected a dotted path such as payload.list.0.name)`,
      );
    if (options.markdown && opensMention(text))
      throw new TemplateError(
        where,
        field,
        "is written inside mention syntax (@**…**); a value could mention anyone, even @**all**",
      );
    if (text) parts.push({ text });
    text = "";
    parts.push({
      field,
      path: field.split("."),
      ...(filtered ? { filter: filtered[2] as Filter } : {}),
    });
    rest = rest.slice(close + 2);
  }
  if (text) parts.push({ text });
  const fields = parts.flatMap((p) => ("field" in p ? [p.field] : []));
  return {
    source,
    fields,
    render(vars) {
      let out = "";
      /** The last part written was a fenced block, which ends with its own line break. */
      let afterBlock = false;
      for (const p of parts) {
        if ("text" in p) {
          // The template's own line break after a block is the one the block already wrote.
          out += afterBlock && p.text.startsWith("\n") ? p.text.slice(1) : p.text;
          afterBlock = false;
          continue;
        }
        afterBlock = p.filter === "quote" || p.filter === "block";
        const value = show(lookup(vars, p.path, where), where, p.path);
        if (!options.markdown) out += value;
        else if (p.filter === "code") out += code(value, Infinity);
        else if (p.filter === "quote") out += onOwnLines(out, codeBlock(value, "quote"));
        else if (p.filter === "block") out += onOwnLines(out, codeBlock(value));
        else out += escapeAfter(out, oneLine(value));
      }
      return afterBlock ? out.slice(0, -1) : out;
    },
  };
}

/** Parses and fills a template in one step. */
export function renderTemplate(
  source: string,
  vars: Readonly<Record<string, unknown>>,
  where = "template",
  options: TemplateOptions = {},
): string {
  return compileTemplate(source, where, options).render(vars);
}
