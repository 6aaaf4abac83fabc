// ConfigError: what is wrong with the configuration, naming the file, the line and the key.
import { editDistance } from "../commands/help.js";

/** Where in a file a problem is: 1-based line and column. */
export interface FilePosition {
  line: number;
  column: number;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly file: string;
  /** Dotted key path such as `server.site` or `plugins[1]`; empty for the whole file. */
  readonly key: string;
  /** What is wrong, without the file and key. */
  readonly problem: string;
  /** For a plugin's settings: the plugin's name. */
  readonly plugin: string | undefined;
  /** Where the key (or the syntax error) is in the file, when known. */
  readonly position: FilePosition | undefined;
  /** Every problem found, in file order, this one first; the message has one line for each. */
  readonly problems: readonly ConfigError[];

  constructor(
    file: string,
    key: string,
    problem: string,
    options: { plugin?: string; position?: FilePosition; more?: readonly ConfigError[] } = {},
  ) {
    const at = options.position ? `:${options.position.line}:${options.position.column}` : "";
    const line = `${file}${at}${key ? `: ${key}` : ""}: ${problem}`;
    super([line, ...(options.more ?? []).map((e) => e.message)].join("\n"));
    this.file = file;
    this.key = key;
    this.problem = problem;
    this.plugin = options.plugin;
    this.position = options.position;
    this.problems = [this, ...(options.more ?? [])];
  }
}

/** One error carrying all of `errors` (at least one), sorted by their place in the file. */
export function allConfigErrors(errors: readonly ConfigError[]): ConfigError {
  const sorted = [...errors].sort(
    (a, b) =>
      (a.position?.line ?? Infinity) - (b.position?.line ?? Infinity) ||
      (a.position?.column ?? 0) - (b.position?.column ?? 0),
  );
  const [first, ...more] = sorted;
  if (more.length === 0) return first!;
  return new ConfigError(first!.file, first!.key, first!.problem, {
    plugin: first!.plugin,
    position: first!.position,
    more,
  });
}

/** Formats a zod issue path as `a.b[2].c`; keys that are not plain names are quoted: `plugins[1]["./standup"]`. */
export function keyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => {
    if (typeof key === "number") return `${out}[${key}]`;
    const name = String(key);
    if (!/^[A-Za-z_$][\w$-]*$/.test(name)) return `${out}[${JSON.stringify(name)}]`;
    return out ? `${out}.${name}` : name;
  }, "");
}

/** The known names closest to a misspelt one (at most a third of its letters off), best first. */
export function closest(name: string, known: readonly string[]): string[] {
  const limit = Math.max(1, Math.floor(name.length / 3));
  return known
    .map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }))
    .filter(({ d }) => d <= limit)
    .sort((x, y) => x.d - y.d)
    .map(({ k }) => k);
}

/** ` (did you mean "prefix"?)`, or "" when nothing is close. */
export function didYouMean(name: string, known: readonly string[]): string {
  const [best] = closest(name, known);
  return best === undefined ? "" : ` (did you mean "${best}"?)`;
}
