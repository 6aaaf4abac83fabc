// Loading bot.config.yaml: parse YAML, interpolate ${VAR} and ${VAR:-default}, validate, name the culprit.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, resolve } from "node:path";
import { parseDocument } from "yaml";
import type { z } from "zod";
import { timeZoneOption } from "../time/zone-option.js";
import { botConfig, serverConfig, type BotConfig, type ServerConfig } from "./schema.js";
import { ConfigError, keyPath } from "./errors.js";
import { parseZuliprc } from "./zuliprc.js";

type Env = Record<string, string | undefined>;

export interface LoadOptions {
  /** Reads a zuliprc file (default: the file system). Tests pass their own. */
  readFile?: (path: string) => string;
}

/** Keys whose values are never echoed in errors. */
const SECRET_KEY = /key|secret|token|password/i;

/** Values of environment variables whose names look secret (`ZULIP_API_KEY`), never shown in errors. */
export function envSecrets(env: Env): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_KEY.test(name) && value !== undefined && value.length >= 4)
    .map(([, value]) => value!);
}

/** The value at a zod issue's path in the input, when that is safe and short to show. */
function gotValue(
  input: unknown,
  path: readonly PropertyKey[],
  hidden: readonly string[],
): string | undefined {
  if (path.some((k) => typeof k === "string" && SECRET_KEY.test(k))) return undefined;
  let value: unknown = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  if (value === undefined) return undefined;
  const shown = JSON.stringify(value);
  if (shown !== undefined && hidden.some((secret) => shown.includes(secret))) return typeof value;
  return shown === undefined || shown.length > 60 ? typeof value : shown;
}

/** The first issue of a failed parse as a ConfigError naming file and key, and what was found. */
export function issueError(
  error: z.ZodError,
  input: unknown,
  file: string,
  prefix: readonly PropertyKey[] = [],
  hidden: readonly string[] = [],
): ConfigError {
  const issue = error.issues[0]!;
  const key = keyPath([...prefix, ...issue.path]);
  if (issue.code === "unrecognized_keys")
    return new ConfigError(
      file,
      key,
      `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`,
    );
  const got = issue.code === "custom" ? undefined : gotValue(input, issue.path, hidden);
  return new ConfigError(file, key, `${issue.message}${got === undefined ? "" : ` (got ${got})`}`);
}

const ENV_KEYS = { site: "ZULIP_SITE", email: "ZULIP_EMAIL", apiKey: "ZULIP_API_KEY" } as const;

/** The server settings: the file's section (completed by a zuliprc), else the ZULIP_* variables. */
function resolveServer(
  section: z.output<typeof botConfig>["server"],
  env: Env,
  file: string,
  readText: (path: string) => string,
): { server?: ServerConfig; serverSource?: string } {
  if (section) {
    const { zuliprc, ...given } = section;
    if (zuliprc === undefined) return { server: given as ServerConfig, serverSource: file };
    const path = resolve(dirname(resolve(file)), zuliprc.replace(/^~(?=$|\/)/, homedir()));
    let text: string;
    try {
      text = readText(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError(
        file,
        "server.zuliprc",
        code === "ENOENT" ? `zuliprc file ${path} not found` : `cannot read ${path}: ${code}`,
      );
    }
    const fromRc = parseZuliprc(text, path);
    const merged = Object.fromEntries(
      Object.entries({ ...fromRc, ...given }).filter(([, v]) => v !== undefined),
    );
    const checked = serverConfig.safeParse(merged);
    if (!checked.success) throw issueError(checked.error, merged, path, [], envSecrets(env));
    return { server: checked.data, serverSource: path };
  }
  const found = Object.entries(ENV_KEYS).filter(([, name]) => env[name]);
  if (found.length === 0) return {};
  if (found.length < 3) {
    const missing = Object.values(ENV_KEYS).filter((name) => !env[name]);
    throw new ConfigError(
      file,
      "server",
      `no server section, and the environment sets ${found.map(([, n]) => n).join(", ")} but not ${missing.join(", ")}`,
    );
  }
  const fromEnv = { site: env.ZULIP_SITE, email: env.ZULIP_EMAIL, apiKey: env.ZULIP_API_KEY };
  const checked = serverConfig.safeParse(fromEnv);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const name = ENV_KEYS[issue.path[0] as keyof typeof ENV_KEYS];
    throw new ConfigError(file, `server.${String(issue.path[0])}`, `${name}: ${issue.message}`);
  }
  return {
    server: checked.data,
    serverSource: "environment (ZULIP_SITE, ZULIP_EMAIL, ZULIP_API_KEY)",
  };
}

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
 * Parses and validates configuration text. Pure: the environment (and the zuliprc reader) are arguments.
 *
 * @example
 * const config = loadConfig("prefix: '?'\nplugins: [ping]", {}, "bot.config.yaml");
 */
export function loadConfig(
  text: string,
  env: Env = process.env,
  file = "bot.config.yaml",
  options: LoadOptions = {},
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
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    throw new ConfigError(file, "", `invalid YAML: ${(error as Error).message}`);
  }
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new ConfigError(file, "", "the top level must be a map of settings");
  const input = interpolate(raw, env, file);
  const result = botConfig.safeParse(input);
  if (!result.success) throw issueError(result.error, input, file, [], envSecrets(env));
  const { server: section, timezone, ...rest } = result.data;
  const readText = options.readFile ?? ((path: string) => readFileSync(path, "utf8"));
  const timeZone = timeZoneOption({ timeZone: rest.timeZone, timezone }, `${file}: timezone`);
  return {
    ...rest,
    ...(timeZone !== undefined && { timeZone }),
    ...resolveServer(section, env, file, readText),
  };
}

/** Reads and loads a config file; a missing file is a ConfigError too. */
export async function loadConfigFile(
  file: string,
  env: Env = process.env,
  options: LoadOptions = {},
): Promise<BotConfig> {
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
  return loadConfig(text, env, file, options);
}
