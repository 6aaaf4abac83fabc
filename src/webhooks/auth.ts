// Webhook authentication: shared tokens and HMAC-SHA256 body signatures, compared in constant time.
import type { IncomingHttpHeaders } from "node:http";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** How a route authenticates requests. Secrets never appear in logs, errors or responses. */
export type RouteAuth =
  /** No authentication: only for receivers on loopback or behind a proxy that checks. */
  | { type: "none" }
  /**
   * A shared token in a header or a query parameter. With neither `header` nor `query` set, both
   * `X-Webhook-Token` and `?token=` are accepted.
   */
  | { type: "token"; token: string; header?: string; query?: string }
  /** GitHub's form: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`. */
  | { type: "github"; secret: string }
  /** A generic HMAC-SHA256 of the raw body in a header, hex or base64, with an optional prefix. */
  | {
      type: "hmac";
      secret: string;
      header: string;
      encoding?: "hex" | "base64";
      /** Text before the signature in the header, e.g. `sha256=`. Default none. */
      prefix?: string;
    };

/** What a check looks at: the raw body, the headers (lower-case names) and the query. */
export interface AuthInput {
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  query: URLSearchParams;
}

/** The outcome: ok, or why not (for the log line; never contains a secret or the sent value). */
export type AuthResult = { ok: true } | { ok: false; reason: string };

/** Constant-time equality of two strings of any lengths (both are hashed first). */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** A header's value (the first, when sent twice), by name in any case. */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name.toLowerCase()];
  return Array.isArray(raw) ? raw[0] : raw;
}

/** HMAC-SHA256 of `body` with `secret`, as hex (`encoding` hex) or base64. */
export function sign(body: Buffer | string, secret: string, encoding: "hex" | "base64" = "hex") {
  return createHmac("sha256", secret).update(body).digest(encoding);
}

/** Signature lengths of an HMAC-SHA256: 32 bytes, as 64 hex digits or 44 base64 characters. */
const SIGNATURE_FORMS = { hex: /^[0-9a-fA-F]{64}$/, base64: /^[A-Za-z0-9+/]{43}=$/ } as const;

/** The signature a header carries, parsed strictly (exact length, no extra digit), or why not. */
function sentSignature(
  headers: IncomingHttpHeaders,
  header: string,
  encoding: "hex" | "base64",
  prefix: string,
): { ok: true; signature: Buffer } | { ok: false; reason: string } {
  const sent = headerValue(headers, header)?.trim();
  if (!sent) return { ok: false, reason: `missing ${header} header` };
  if (!sent.startsWith(prefix))
    return { ok: false, reason: `${header} header does not start with "${prefix}"` };
  const given = sent.slice(prefix.length);
  if (!SIGNATURE_FORMS[encoding].test(given))
    return { ok: false, reason: `${header} header is not an HMAC-SHA256 in ${encoding}` };
  return { ok: true, signature: Buffer.from(given, encoding) };
}

function checkHmac(
  input: AuthInput,
  secret: string,
  header: string,
  encoding: "hex" | "base64",
  prefix: string,
): AuthResult {
  const sent = sentSignature(input.headers, header, encoding, prefix);
  if (!sent.ok) return sent;
  const expected = createHmac("sha256", secret).update(input.rawBody).digest();
  if (!timingSafeEqual(sent.signature, expected))
    return { ok: false, reason: `${header} signature does not match the body` };
  return { ok: true };
}

/**
 * What can be checked before the body is read: a token completely; for signatures, that the
 * header is there and well formed. A request that fails here is refused without reading its body.
 */
export function precheck(auth: RouteAuth, input: Omit<AuthInput, "rawBody">): AuthResult {
  switch (auth.type) {
    case "none":
      return { ok: true };
    case "token":
      return authenticate(auth, { ...input, rawBody: Buffer.alloc(0) });
    case "github": {
      const sent = sentSignature(input.headers, "x-hub-signature-256", "hex", "sha256=");
      return sent.ok ? { ok: true } : sent;
    }
    case "hmac": {
      const sent = sentSignature(
        input.headers,
        auth.header,
        auth.encoding ?? "hex",
        auth.prefix ?? "",
      );
      return sent.ok ? { ok: true } : sent;
    }
  }
}

/**
 * Checks a request against a route's authentication.
 *
 * @example
 * authenticate({ type: "github", secret }, { rawBody, headers, query }); // { ok: true } or { ok: false, reason }
 */
export function authenticate(auth: RouteAuth, input: AuthInput): AuthResult {
  switch (auth.type) {
    case "none":
      return { ok: true };
    case "github":
      return checkHmac(input, auth.secret, "x-hub-signature-256", "hex", "sha256=");
    case "hmac":
      return checkHmac(input, auth.secret, auth.header, auth.encoding ?? "hex", auth.prefix ?? "");
    case "token": {
      const both = auth.header === undefined && auth.query === undefined;
      const headerName = auth.header ?? (both ? "x-webhook-token" : undefined);
      const queryName = auth.query ?? (both ? "token" : undefined);
      // An empty header counts as absent (some proxies forward one), so `?token=` still applies.
      const fromHeader = headerName
        ? headerValue(input.headers, headerName)?.trim() || undefined
        : undefined;
      const fromQuery = queryName ? (input.query.get(queryName) ?? undefined) : undefined;
      const sent = fromHeader ?? fromQuery;
      const where = [headerName && `${headerName} header`, queryName && `?${queryName}=`]
        .filter(Boolean)
        .join(" or ");
      if (sent === undefined) return { ok: false, reason: `missing token (${where})` };
      if (!safeEqual(sent, auth.token)) return { ok: false, reason: `wrong token (${where})` };
      return { ok: true };
    }
  }
}

/** The secrets of an auth setting, for redaction. */
export function authSecrets(auth: RouteAuth): string[] {
  return auth.type === "token" ? [auth.token] : auth.type === "none" ? [] : [auth.secret];
}
