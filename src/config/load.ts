// Loading bot.config.yaml: parse YAML, interpolate ${VAR} and ${VAR:-default}, validate, name the culprit.
import { readFile } from "node:fs/promises";
import { parseDocument } from "yaml";
import { botConfig, type BotConfig } from "./schema.js";
import { ConfigError, keyPath } from "./errors.js";

type Env = Record<string, string | undefined>;

/** Replaces `${VAR}` and `${VAR:-default}` in every string of the tree; `$${` escapes a literal `${`. */
export function interpolate(
  value: unknown,
  env: Env,
  file: string,
  path: (string | number)[] = [],
): unknown {
  if (typeof value === "string") {
    return value.replace(
      /\$?\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
      (whole, name: string, fallback?: string) => {
        if (whole.startsWith("$$")) return whole.slice(1);
        const found = env[name];
        if (found !== undefined && found !== "") return found;
        if (fallback !== undefined) return fallback;
        throw new ConfigError(
          file,
          keyPath(path),
          `environment variable ${name} is not set (write \${${name}:-default} to give a default)`,
        );
      },
    );
  }
  if (Array.isArray(value))
    return value.map((item, i) => interpolate(item, env, file, [...path, i]));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, interpolate(v, env, file, [...path, k])]),
    );
  }
  return value;
}

/**
 * Parses and validates configuration text. Pure: the environment is an argument.
 *
 * @example
 * const config = loadConfig("prefix: '?'\nplugins: [ping]", {}, "bot.config.yaml");
 */
export function loadConfig(
  text: string,
  env: Env = process.env,
  file = "bot.config.yaml",
): BotConfig {
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    const [line, col] = error.linePos?.[0]
      ? [error.linePos[0].line, error.linePos[0].col]
      : [undefined, undefined];
    throw new ConfigError(
      file,
      "",
      `invalid YAML${line ? ` at line ${line}, column ${col}` : ""}: ${error.message.split("\n")[0]}`,
    );
  }
  const raw = doc.toJS() ?? {};
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new ConfigError(file, "", "the top level must be a map of settings");
  const result = botConfig.safeParse(interpolate(raw, env, file));
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = keyPath(issue.path);
    const problem =
      issue.code === "unrecognized_keys"
        ? `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`
        : issue.message;
    throw new ConfigError(file, key, problem);
  }
  return result.data;
}

/** Reads and loads a config file; a missing file is a ConfigError too. */
export async function loadConfigFile(file: string, env: Env = process.env): Promise<BotConfig> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      file,
      "",
      code === "ENOENT" ? "file not found" : `cannot read: ${(error as Error).message}`,
    );
  }
  return loadConfig(text, env, file);
}
