// A long poll cut by something between the bot and the server (a proxy's read timeout), told apart from a failing server.
import { CertificateError, NetworkError } from "../client/errors.js";

/**
 * A poll open at least this long before it failed was being held by the server: a failure then
 * is the connection being cut (a proxy's timeout), not the server refusing or being down, which
 * fails a poll at once.
 */
export const MIN_CUT_MS = 10_000;

/** HTTP statuses a proxy answers with when it gives up waiting for the server (nginx: 504). */
const PROXY_TIMEOUT_STATUSES = new Set([502, 504, 524]);

/** undici's and Node's codes for a connection closed or reset by the other side. */
const CLOSED_CODES = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE", "UND_ERR_CLOSED"]);

function causeCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether a poll that failed with `error` after `elapsedMs` was cut in between: a proxy's
 * timeout answer (502/504 with a body that is not the server's JSON) or the connection closed,
 * after the poll had been open for `MIN_CUT_MS` or more. The server still holds the queue then.
 */
export function isCutPoll(error: unknown, elapsedMs: number, minMs = MIN_CUT_MS): boolean {
  if (elapsedMs < minMs) return false;
  if (!(error instanceof NetworkError) || error instanceof CertificateError) return false;
  if (error.status !== undefined) return PROXY_TIMEOUT_STATUSES.has(error.status);
  const code = causeCode(error.cause);
  return code !== undefined && CLOSED_CODES.has(code);
}

/** The once-logged explanation of cut polls, with the fix. */
export function cutPollHint(elapsedMs: number, error: unknown): string {
  const seconds = Math.round(elapsedMs / 1000);
  const how =
    error instanceof NetworkError && error.status !== undefined
      ? `answered HTTP ${error.status} for the server`
      : "closed the connection";
  return (
    `the long poll (GET /events) was cut after ${seconds} s: something between the bot and the server ${how} ` +
    "before the server answered (it holds a poll until an event or a heartbeat, up to about 90 s). This is " +
    "usually a reverse proxy's read timeout (nginx: proxy_read_timeout, default 60s) or an egress proxy's idle " +
    "timeout: raise it above 90 s for /api/v1/events. Nothing is lost meanwhile: the bot polls the same queue again at once."
  );
}
