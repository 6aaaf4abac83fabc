// Errors the sandbox answers with: an HTTP status, a stable code, a message and extra keys.
import type { KnownErrorCode } from "../api/envelope.js";

export class SandboxError extends Error {
  readonly status: number;
  /** Only codes of `ERROR_CODES` in `src/api/envelope.ts`, so clients can rely on the list. */
  readonly code: KnownErrorCode;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: KnownErrorCode,
    msg: string,
    options: {
      status?: number;
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(msg);
    this.code = code;
    this.status = options.status ?? 400;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  toBody(): Record<string, unknown> {
    return { result: "error", msg: this.message, code: this.code, ...this.extra };
  }
}

/** `BAD_REQUEST` (HTTP 400), the default error. */
export const badRequest = (msg: string, extra?: Record<string, unknown>): SandboxError =>
  new SandboxError("BAD_REQUEST", msg, { extra });

/** `REQUEST_VARIABLE_MISSING` with `var_name`. */
export const missing = (name: string): SandboxError =>
  new SandboxError("REQUEST_VARIABLE_MISSING", `Missing '${name}' argument`, {
    extra: { var_name: name },
  });
