// Loading bot.config.yaml: parse YAML, interpolate ${VAR} and ${VAR:-default}, validate, name the culprit.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { isMap, isScalar, LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { botConfig, serverConfig, type BotConfig, type ServerConfig } from "./schema.js";
import { allConfigErrors, ConfigError, didYouMean, keyPath, type FilePosition } from "./errors.js";
import { parseZuliprc } from "./zuliprc.js";
import {
  readNamedFile,
  readTlsFiles,
  YAML_TLS_KEYS,
  ZULIPRC_TLS_KEYS,
  type TlsRead,
} from "./tls-files.js";

type Env = Record<string, string | undefined>;

export interface LoadOptions {
  /** Reads a zuliprc file (default: the file system). Tests pass their own. */
  readFile?: (path: string) => string;
}

/**
 * Parse options for a schema parsed once per process, as the config is: zod's JIT (on by default)
 * writes and compiles a checking function for each object schema at its first parse, which pays
 * off only over many parses; for one it costs more than it saves (~1.5 ms of the config's ~7 ms
 * at start-up, issue 17). The checks are the same either way.
 */
const ONCE = { jitless: true } as const;

/** Keys whose values are never echoed in errors. */
const SECRET_KEY = /key|secret|token|password/i;

/** Values of environment variables whose names look secret (`ZULIP_API_KEY`), never shown in errors. */
export function envSecrets(env: Env): string[] {
  return Object.entries(env)
    .filter(([name, value]) => SECRET_KEY.test(name) && value !== undefined && value.length >= 4)
    .map(([, value]) => value!);
}

/** True when nothing is written at `path` of the input. */
function isAbsent(input: unknown, path: readonly PropertyKey[]): boolean {
  let value: unknown = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return true;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value === undefined;
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

/** Finds where a key path sits in the source file (the key itself when `key` is set). */
export type Locate = (path: readonly PropertyKey[], key?: boolean) => FilePosition | undefined;

/** A locator over a parsed YAML document. */
export function yamlLocator(doc: Document, lines: LineCounter): Locate {
  return (path, key = false) => {
    const at = (offset: number | undefined): FilePosition | undefined => {
      if (offset === undefined) return undefined;
      const { line, col } = lines.linePos(offset);
      return { line, column: col };
    };
    const parentPath = path.slice(0, -1);
    const last = path.at(-1);
    const parent =
      parentPath.length === 0 ? doc.contents : doc.getIn(parentPath as unknown[], true);
    if (isMap(parent) && last !== undefined) {
      const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
      if (pair) {
        const node = key || !pair.value ? pair.key : pair.value;
        return at((node as { range?: [number, number, number] }).range?.[0]);
      }
    }
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n) as unknown[], true);
      const range = (node as { range?: [number, number, number] } | null)?.range;
      if (range) return at(range[0]);
    }
    return undefined;
  };
}

/** The keys an object schema at `path` accepts, for "did you mean". */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  const unwrap = (s: z.ZodType): z.ZodType => {
    let t: z.ZodType = s;
    for (let i = 0; i < 10; i++) {
      const def = (t as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
      const inner = (def.innerType ?? def.in ?? undefined) as z.ZodType | undefined;
      if (!inner) return t;
      t = inner;
    }
    return t;
  };
  for (const key of path) {
    if (!current) return [];
    const def: Record<string, unknown> = (
      unwrap(current) as unknown as { _zod: { def: Record<string, unknown> } }
    )._zod.def;
    if (def.type === "object") current = (def.shape as Record<string, z.ZodType>)[String(key)];
    else if (def.type === "array") current = def.element as z.ZodType;
    else if (def.type === "record") current = def.valueType as z.ZodType;
    else return [];
  }
  if (!current) return [];
  const def = (unwrap(current) as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  return def.type === "object" ? Object.keys(def.shape as object) : [];
}

/** Where a failed parse comes from, to name lines and suggest keys. */
export interface IssueSource {
  locate?: Locate;
  /** The schema that was parsed, for the keys it knows. */
  schema?: z.ZodType;
  /** Path of the parsed value within the file (for locating; it is also the key prefix). */
  at?: readonly PropertyKey[];
  /** Put before every problem (`plugin "hello": `). */
  label?: string;
  plugin?: string;
}

/**
 * Every issue of a failed parse as one ConfigError, in file order: file, line and column, key,
 * what was expected and what was found, and "did you mean" for a misspelt key.
 */
export function issueError(
  error: z.ZodError,
  input: unknown,
  file: string,
  prefix: readonly PropertyKey[] = [],
  hidden: readonly string[] = [],
  source: IssueSource = {},
): ConfigError {
  const at = source.at ?? prefix;
  const label = source.label ?? "";
  const errors = error.issues.flatMap((issue) => {
    if (issue.code === "unrecognized_keys") {
      const known = source.schema ? knownKeys(source.schema, issue.path) : [];
      return issue.keys.map((name) => {
        const hint =
          didYouMean(name, known) ||
          (known.length > 0 ? ` (expected one of ${known.join(", ")})` : "");
        return new ConfigError(
          file,
          keyPath([...prefix, ...issue.path, name]),
          `${label}unknown key${hint}`,
          {
            plugin: source.plugin,
            position: source.locate?.([...at, ...issue.path, name], true),
          },
        );
      });
    }
    const got = issue.code === "custom" ? undefined : gotValue(input, issue.path, hidden);
    // A required key left out: zod says "Invalid input: expected string, received undefined".
    const message =
      issue.code === "invalid_type" && isAbsent(input, issue.path)
        ? `required (expected ${issue.expected})`
        : issue.message;
    return [
      new ConfigError(
        file,
        keyPath([...prefix, ...issue.path]),
        `${label}${message}${got === undefined ? "" : ` (got ${got})`}`,
        { plugin: source.plugin, position: source.locate?.([...at, ...issue.path]) },
      ),
    ];
  });
  return allConfigErrors(errors);
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
    const { zuliprc, tls, ...given } = section;
    const fromYaml = tls ? readTlsFiles(tls, file, YAML_TLS_KEYS, readText) : undefined;
    if (zuliprc === undefined) {
      const server = { ...given, ...(fromYaml && { tls: fromYaml }) } as ServerConfig;
      return { server, serverSource: file };
    }
    const { path, text } = readNamedFile(file, "server.zuliprc", zuliprc, readText, "zuliprc file");
    const { tls: rcTls, ...fromRc } = parseZuliprc(text, path);
    const fromZuliprc = rcTls ? readTlsFiles(rcTls, path, ZULIPRC_TLS_KEYS, readText) : undefined;
    const merged: Record<string, unknown> = Object.fromEntries(
      Object.entries({ ...fromRc, ...given }).filter(([, v]) => v !== undefined),
    );
    const tlsRead = mergeTls(fromZuliprc, fromYaml);
    if (tlsRead) merged.tls = tlsRead;
    const checked = serverConfig.safeParse(merged, ONCE);
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
  const fromEnv: Record<string, unknown> = {
    site: env.ZULIP_SITE,
    email: env.ZULIP_EMAIL,
    apiKey: env.ZULIP_API_KEY,
  };
  const tlsRead = envTls(env, file, readText);
  if (tlsRead) fromEnv.tls = tlsRead;
  const checked = serverConfig.safeParse(fromEnv, ONCE);
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

/** The YAML's server.tls over a zuliprc's, part by part. */
function mergeTls(base: TlsRead | undefined, over: TlsRead | undefined): TlsRead | undefined {
  if (!base || !over) return base ?? over;
  return { ...base, ...over, files: { ...base.files, ...over.files } };
}

/**
 * The Python client's TLS variables, for a server taken from the environment: ZULIP_CERT_BUNDLE,
 * ZULIP_CERT, ZULIP_CERT_KEY (file names) and ZULIP_ALLOW_INSECURE (true or false).
 */
function envTls(env: Env, file: string, readText: (path: string) => string): TlsRead | undefined {
  const insecure = env.ZULIP_ALLOW_INSECURE;
  if (insecure !== undefined && insecure !== "" && !/^(true|false)$/i.test(insecure))
    throw new ConfigError(
      file,
      "server",
      `ZULIP_ALLOW_INSECURE is ${JSON.stringify(insecure)}: it must be true or false`,
    );
  // Relative to the working directory, as the Python client takes them.
  const path = (name: string | undefined): string | undefined => (name ? resolve(name) : undefined);
  const files = {
    ca: path(env.ZULIP_CERT_BUNDLE),
    cert: path(env.ZULIP_CERT),
    key: path(env.ZULIP_CERT_KEY),
    insecure: insecure ? insecure.toLowerCase() === "true" : undefined,
  };
  if (Object.values(files).every((v) => v === undefined)) return undefined;
  return readTlsFiles(
    files,
    file,
    { ca: "ZULIP_CERT_BUNDLE", cert: "ZULIP_CERT", key: "ZULIP_CERT_KEY" },
    readText,
  );
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
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: true, lineCounter: lines });
  if (doc.errors.length > 0)
    throw allConfigErrors(
      doc.errors.map((error) => {
        const offset = unclosedBracket(text, error.pos[0], error.message) ?? error.pos[0];
        const { line, col } = lines.linePos(offset);
        const what = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
        return new ConfigError(file, "", `invalid YAML: ${what}`, {
          position: { line, column: col },
        });
      }),
    );
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (error) {
    throw new ConfigError(file, "", `invalid YAML: ${(error as Error).message}`);
  }
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new ConfigError(file, "", "the top level must be a map of settings");
  const input = interpolate(raw, env, file);
  const result = botConfig.safeParse(input, ONCE);
  if (!result.success)
    throw issueError(result.error, input, file, [], envSecrets(env), {
      locate: yamlLocator(doc, lines),
      schema: botConfig,
    });
  const { server: section, ...rest } = result.data;
  const readText = options.readFile ?? ((path: string) => readFileSync(path, "utf8"));
  return {
    ...rest,
    ...resolveServer(section, env, file, readText),
  };
}

/**
 * For "must end with a ]" errors, which YAML reports where it gave up (often lines later): the
 * offset of the bracket left open, which is where the mistake is.
 */
function unclosedBracket(text: string, end: number, message: string): number | undefined {
  const closer = /end with an? ([\]}])/.exec(message)?.[1];
  if (!closer) return undefined;
  const opener = closer === "]" ? "[" : "{";
  let depth = 0;
  for (let i = Math.min(end, text.length) - 1; i >= 0; i--) {
    if (text[i] === closer) depth++;
    else if (text[i] === opener) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return undefined;
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
