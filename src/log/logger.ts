// Logging: pino JSON (pretty on a terminal), with secrets redacted wherever they appear.
import { pino, type Logger, type LoggerOptions } from "pino";

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
}

/** Creates the root logger. Every API key the process knows is also scrubbed from messages. */
export function createLogger(options: LogOptions = {}): Logger {
  const base: LoggerOptions = {
    level: options.level ?? process.env.LOG_LEVEL ?? "info",
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    base: undefined,
  };
  const destination = options.destination ?? process.stdout;
  const pretty =
    options.format === "pretty" ||
    (options.format === undefined && (destination as { isTTY?: boolean }).isTTY);
  if (pretty && destination === process.stdout) {
    return pino({
      ...base,
      transport: { target: "pino-pretty", options: { colorize: true, ignore: "pid,hostname" } },
    });
  }
  return pino(base, destination as pino.DestinationStream);
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
