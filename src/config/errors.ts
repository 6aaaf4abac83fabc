// ConfigError: what is wrong with the configuration, naming the file and the key.

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly file: string;
  /** Dotted key path such as `server.site` or `plugins[1]`; empty for the whole file. */
  readonly key: string;

  constructor(file: string, key: string, problem: string) {
    super(`${file}${key ? `: ${key}` : ""}: ${problem}`);
    this.file = file;
    this.key = key;
  }
}

/** Formats a zod issue path as `a.b[2].c`. */
export function keyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) =>
      typeof key === "number" ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key),
    "",
  );
}
