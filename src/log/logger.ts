// Logging: pino JSON (pretty on a terminal), with secrets redacted wherever they appear.
import { createRequire } from "node:module";
import { pino, type Logger, type LoggerOptions } from "pino";
import type PinoPretty from "pino-pretty";

export type { Logger };

/** Paths pino blanks in every log line: credentials under any common name. */
export const REDACT_PATHS = [
  "apiKey",
  "api_key",
  "password",
  "secret",
  "token",
  "authorization",
  "*.apiKey",
  "*.api_key",
  "*.password",
  "*.secret",
  "*.token",
  "*.authorization",
  "*.*.apiKey",
  "*.*.secret",
  "*.*.token",
  "headers.authorization",
];

export interface LogOptions {
  level?: string;
  /** `pretty` for humans, `json` for machines; default: pretty on a terminal. */
  format?: "pretty" | "json";
  /** Destination stream (tests pass their own). Default: standard output. */
  destination?: NodeJS.WritableStream;
  /**
   * Secrets scrubbed from every line, wherever they appear (messages, errors, nested objects):
   * give the API key, and `basicAuthSecret(email, apiKey)` for the Authorization header's form.
   */
  secrets?: readonly (string | undefined)[];
}

/** The base64 credentials of an `Authorization: Basic` header, which are as secret as the key. */
export const basicAuthSecret = (email: string, apiKey: string): string =>
  Buffer.from(`${email}:${apiKey}`).toString("base64");

/** The secrets of a server configuration, in every form they can take on the wire. */
export const serverSecrets = (server: { email: string; apiKey: string } | undefined): string[] =>
  server ? [server.apiKey, basicAuthSecret(server.email, server.apiKey)] : [];

/**
 * Creates the root logger: pino JSON lines (pretty on a terminal), well-known secret keys blanked
 * by path, and every secret in `secrets` scrubbed from the finished line.
 *
 * @example
 * const log = createLogger({ level: "debug", secrets: serverSecrets(config.server) });
 */
export function createLogger(options: LogOptions = {}): Logger {
  const base: LoggerOptions = {
    level: options.level ?? process.env.LOG_LEVEL ?? "info",
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    base: undefined,
  };
  const destination = options.destination ?? process.stdout;
  const isTTY = (destination as { isTTY?: boolean }).isTTY === true;
  const pretty = options.format === "pretty" || (options.format === undefined && isTTY);
  const sink: { write(line: string): unknown } = pretty
    ? loadPinoPretty()({ colorize: isTTY, ignore: "pid,hostname", destination, sync: true })
    : destination;
  const secrets = (options.secrets ?? []).filter((s): s is string => !!s && s.length >= 4);
  if (secrets.length === 0) return pino(base, sink as pino.DestinationStream);
  return pino(base, { write: (line: string) => sink.write(redactSecrets(line, secrets)) });
}

/**
 * pino-pretty, loaded on first use: a bot logging JSON (production) never loads it and its ~30
 * modules. It is CommonJS, so `require` loads it synchronously and `createLogger` stays sync.
 */
function loadPinoPretty(): typeof PinoPretty {
  return createRequire(import.meta.url)("pino-pretty") as typeof PinoPretty;
}

/** A logger that drops everything (library default when none is given). */
export const silentLogger = (): Logger => pino({ level: "silent" });

/** Replaces each secret occurring in `text` by `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets)
    if (secret && secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out;
}
