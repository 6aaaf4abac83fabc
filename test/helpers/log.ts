// Test helper: a real pino logger (with the project's redaction) whose JSON lines a test can read.
import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../src/log/logger.js";

export interface CapturedLog {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
  /** Every line written so far, as text (to check that no secret appears anywhere). */
  text(): string;
}

/** A debug-level JSON logger writing into memory. */
export function captureLog(): CapturedLog {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString("utf8"));
      callback();
    },
  });
  const logger = createLogger({ level: "debug", format: "json", destination });
  const text = () => chunks.join("");
  return {
    logger,
    text,
    lines: () =>
      text()
        .split("\n")
        .filter((l) => l.trim() !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
