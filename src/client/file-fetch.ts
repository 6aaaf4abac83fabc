// Fetching a file the server serves (an upload's temporary URL, an avatar) through the client's own connection.
import type { Dispatcher } from "undici";
import { certificateError, proxyRefusal } from "./connection-errors.js";
import { NetworkError } from "./errors.js";
import type { HttpResponse, Transport } from "./transport.js";

export interface FetchFileOptions {
  /**
   * Send the client's credentials: only ever to the site's own origin, never to where a redirect
   * leads. Default false (a temporary upload URL needs none).
   */
  authenticate?: boolean;
  signal?: AbortSignal;
  /** Longest wait for the answer to start, and between its chunks. Default 30 s. */
  timeoutMs?: number;
}

/** A file as the server (or the place it redirected to) served it. */
export interface FetchedFile {
  status: number;
  headers: HttpResponse["headers"];
  data: Buffer;
}

/** Redirects followed before the fetch fails (a real server sends one, to its object storage). */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs `target` (a path on the site, or a URL) through the transport's connection: its proxy,
 * its CA and client certificate, on the site's origin its keep-alive pool. A redirect is followed
 * (a real server with S3 storage answers a temporary upload URL with one), to another origin with
 * a dispatcher of the same settings and without credentials. Any status is returned as it is,
 * the last answer's; a connection that fails is a NetworkError naming the cause.
 */
export async function fetchFile(
  transport: Transport,
  target: string | URL,
  options: FetchFileOptions = {},
): Promise<FetchedFile> {
  let url = new URL(target, transport.origin);
  const timeoutMs = options.timeoutMs ?? 30_000;
  for (let redirects = 0; ; redirects++) {
    const own = url.origin === transport.origin;
    const { dispatcher, owned } = own
      ? { dispatcher: transport.dispatcher, owned: false }
      : transport.dispatcherFor(url.origin);
    const endpoint = `GET ${url.origin}${withoutToken(url.pathname)}`;
    try {
      let res: Dispatcher.ResponseData;
      try {
        res = await dispatcher.request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: "GET",
          headers: fileHeaders(transport, own && options.authenticate === true),
          signal: options.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (error) {
        throw connectionError(error, endpoint, own ? transport.via : "", options.signal);
      }
      const location = res.headers.location;
      if (REDIRECTS.has(res.statusCode) && typeof location === "string") {
        await res.body.dump();
        if (redirects >= MAX_REDIRECTS)
          throw new NetworkError(`more than ${MAX_REDIRECTS} redirects`, { endpoint });
        url = new URL(location, url);
        continue;
      }
      const data = Buffer.from(await res.body.arrayBuffer());
      return { status: res.statusCode, headers: res.headers, data };
    } finally {
      if (owned) await dispatcher.close();
    }
  }
}

/**
 * The transport's headers without its `accept` and `accept-encoding`: a file is taken as the server
 * serves it, never compressed on the way (its bytes are handed on as they came).
 */
function fileHeaders(transport: Transport, authenticate: boolean): Record<string, string> {
  const {
    accept: _accept,
    "accept-encoding": _encoding,
    ...rest
  } = transport.headers(authenticate);
  return rest;
}

/** A path for error messages: a temporary upload URL's token (access to the file for a while) left out. */
function withoutToken(path: string): string {
  return path.replace(/^\/user_uploads\/temporary\/[^/]+\//, "/user_uploads/temporary/…/");
}

/** What a request that got no answer throws: the signal's reason, or a NetworkError naming why. */
function connectionError(
  error: unknown,
  endpoint: string,
  via: string,
  signal: AbortSignal | undefined,
): unknown {
  if (signal?.aborted) return signal.reason;
  const certificate = certificateError(error, endpoint);
  if (certificate) return certificate;
  const reason = proxyRefusal(error) ?? (error instanceof Error ? error.message : String(error));
  return new NetworkError(`request failed: ${reason}${via}`, { endpoint, cause: error });
}
