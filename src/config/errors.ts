// ConfigError: what is wrong with the configuration, naming the file and the key.

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly file: string;
  /** Dotted key path such as `server.site` or `plugins[1]`; empty for the whole file. */
  readonly key: string;
  /** What is wrong, without the file and key. */
  readonly problem: string;
  /** For a plugin's settings: the plugin's name. */
  readonly plugin: string | undefined;

  constructor(file: string, key: string, problem: string, options: { plugin?: string } = {}) {
    super(`${file}${key ? `: ${key}` : ""}: ${problem}`);
    this.file = file;
    this.key = key;
    this.problem = problem;
    this.plugin = options.plugin;
  }
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
