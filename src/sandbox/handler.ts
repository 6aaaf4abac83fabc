// The sandbox as a request handler: match a route, authenticate, decode parameters, answer JSON.
import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { clientNameOf } from "./send.js";
import { pathParamNames } from "../api/endpoint.js";
import { authenticate, notLoggedIn, parseBasicAuth } from "./auth.js";
import { readBody, type UploadedFile } from "./body.js";
import { SandboxError } from "./errors.js";
import { decodeParams } from "./params.js";
import type { RequestRateLimiter } from "./ratelimit.js";
import type { Realm } from "./realm.js";
import type { SandboxUser } from "./model.js";
import type { StoredUpload } from "./uploads.js";
import { RawResponse, type Route, type RouteContext } from "./route.js";
import type { FaultOutcome } from "./faults.js";

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
  /** `METHOD /path`, as fault rules name the endpoint. */
  label: string;
}

/** Routes with fewer placeholders first, so `/messages/matches_narrow` wins over `/messages/{message_id}`. */
function compile(routes: readonly Route[]): CompiledRoute[] {
  return routes
    .map((route) => {
      const names = pathParamNames(route.endpoint.path);
      // IDs match digits only, as the server's `<int:...>` URL converters: `/messages/-1` is a 404,
      // and `/users/12` goes to GET /users/{user_id} while `/users/a@b` goes to GET /users/{email}.
      const parts = route.endpoint.path
        .split(/\{\w+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      const source = parts
        .map((part, i) =>
          i === 0 ? part : `${names[i - 1]!.endsWith("_id") ? "(\\d+)" : "([^/]+)"}${part}`,
        )
        .join("");
      return {
        route,
        pattern: new RegExp(`^${source}/?$`),
        names,
        label: `${route.endpoint.method} ${route.endpoint.path}`,
      };
    })
    .sort((a, b) => a.names.length - b.names.length);
}

const BASE = "http://sandbox.invalid";

/** A request target through the WHATWG URL parser; one such as `/\\` is no path at all: the client's fault, a 400. */
function parsedTarget(target: string): URL {
  if (!URL.canParse(target, BASE)) throw new SandboxError("BAD_REQUEST", "Malformed request path");
  return new URL(target, BASE);
}

/** A path of letters, digits, `_`, `-` and `/` (not `//` first: that names a host), then an optional query of printable ASCII without `#` (nor a second `?` first: URLSearchParams would drop it). */
const PLAIN_TARGET = /^\/(?!\/)[\w\-/]*(?:\?(?!\?)[\x21\x22\x24-\x7e]*)?$/;

/** The parameters of a target without a query, one instance for all of them: read, never changed. */
const NO_QUERY = new URLSearchParams();

/**
 * The path and query of a request target, as `new URL(target, base)` gives them. A fast path:
 * the URL parser costs several microseconds per request, and API targets are plain: a path with
 * no dot segments, escapes or backslashes (which the parser would rewrite) and a printable ASCII
 * query (which it would only percent-encode for `searchParams` to decode again) split at the
 * `?` into the same path and parameters. Any other target goes through the parser.
 */
export function requestTarget(target: string): { pathname: string; searchParams: URLSearchParams } {
  if (!PLAIN_TARGET.test(target)) return parsedTarget(target);
  const mark = target.indexOf("?");
  return mark === -1
    ? { pathname: target, searchParams: NO_QUERY }
    : {
        pathname: target.slice(0, mark),
        searchParams: new URLSearchParams(target.slice(mark + 1)),
      };
}

/**
 * JSON answers this long or longer are gzipped for a client that accepts it, as the server's nginx
 * does (`gzip_types application/json`, at its default level 1); shorter ones (nearly every reply
 * and poll) go as they are, where compressing would cost more than it saves.
 */
const GZIP_FROM_BYTES = 8 * 1024;

/** Whether the request's `Accept-Encoding` takes gzip (not with `q=0`). */
function acceptsGzip(res: ServerResponse): boolean {
  const header = res.req?.headers["accept-encoding"];
  if (typeof header !== "string") return false;
  for (const item of header.split(",")) {
    const [coding, ...params] = item.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return q === undefined || Number(q) > 0;
  }
  return false;
}

/** No headers beyond the usual ones. */
const NO_HEADERS: Record<string, string> = Object.freeze({});

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = NO_HEADERS,
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  if (text.length < GZIP_FROM_BYTES && headers === NO_HEADERS) {
    // The common answer, written without building a merged header object for it.
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
    return;
  }
  if (text.length >= GZIP_FROM_BYTES && acceptsGzip(res)) {
    const zipped = gzipSync(text, { level: 1 });
    res.writeHead(status, {
      "content-type": "application/json",
      "content-encoding": "gzip",
      vary: "Accept-Encoding",
      "content-length": zipped.length,
      ...headers,
    });
    res.end(zipped);
    return;
  }
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export interface HandlerOptions {
  realm: Realm;
  routes: readonly Route[];
  /** Requests outside `/api/v1` (the `/sandbox/*` control routes); return false when not handled. */
  extra?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;
  /**
   * Called for every API request before its route runs (fault injection): true when it answered
   * the request itself, or a function that replaces the route's answer after the route has run.
   */
  intercept?: (
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: string,
  ) => FaultOutcome | Promise<FaultOutcome>;
  /** Per-user rate limits; every authenticated API request counts. */
  rateLimiter?: RequestRateLimiter;
  onError?: (error: unknown) => void;
}

const htmlAnswer = (status: number, text: string): RawResponse =>
  new RawResponse(status, { "content-type": "text/html; charset=utf-8" }, Buffer.from(text));

/** The file's bytes, as the server's `serve_local` sends them. */
const fileAnswer = (upload: StoredUpload): RawResponse =>
  new RawResponse(
    200,
    {
      "content-type": upload.mimeType,
      "content-length": String(upload.data.length),
      "content-disposition": `attachment; filename="${upload.filename}"`,
      "cache-control": "private, immutable",
    },
    upload.data,
  );

/**
 * GET of an uploaded file, as the server's `serve_file`: a missing file is a 404 page, one the
 * user may not read a 403 page (HTML, not JSON). Through the API (`/api/v1/user_uploads/...`,
 * `serve_file_url_backend`) the answer is JSON with a temporary URL; at `/user_uploads/...` the
 * bytes. `/user_uploads/temporary/<token>/<name>` serves the bytes without credentials.
 */
function serveUpload(
  realm: Realm,
  user: SandboxUser | undefined,
  path: string,
  viaApi: boolean,
): RawResponse {
  const temporary = /^\/user_uploads\/temporary\/([^/]+)\/([^/]+)$/.exec(path);
  if (temporary && !viaApi) {
    const found = realm.uploads.fromToken(
      temporary[1]!,
      decodePathValue("filename", temporary[2]!),
      realm.clock.now(),
    );
    if (typeof found === "string") throw new SandboxError("BAD_REQUEST", found);
    return fileAnswer(found);
  }
  if (!user) throw notLoggedIn();
  const upload = realm.uploads.get(path);
  if (!upload) return htmlAnswer(404, "<p>This file does not exist or has been deleted.</p>");
  if (!realm.uploads.canRead(realm, upload, user))
    return htmlAnswer(403, "<p>You are not authorized to view this file.</p>");
  if (!viaApi) return fileAnswer(upload);
  const url = realm.uploads.temporaryUrl(upload, realm.clock.now());
  const body = JSON.stringify({ result: "success", msg: "", url });
  return new RawResponse(200, { "content-type": "application/json" }, Buffer.from(body));
}

/** A path parameter's text; a broken %-escape (`%zz`) is a bad request naming the parameter. */
function decodePathValue(name: string, text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new SandboxError("BAD_REQUEST", `Invalid ${name}`);
  }
}

/**
 * The route context of one request. `signal` is made on first read, a fast path: only long-polls
 * read it, and an AbortController per request, aborted with a fresh DOMException when its
 * response closes, cost about a tenth of a small request's CPU. Aborts when the client goes
 * away before the answer is complete; a finished response aborts nothing (no one listens then).
 */
class RequestContext implements RouteContext<Record<string, unknown>, SandboxUser | undefined> {
  #closed: AbortController | undefined;

  constructor(
    readonly res: ServerResponse,
    readonly realm: Realm,
    readonly user: SandboxUser | undefined,
    readonly params: Record<string, unknown>,
    readonly files: UploadedFile[],
    readonly clientName: string,
  ) {}

  get signal(): AbortSignal {
    if (this.#closed) return this.#closed.signal;
    const closed = new AbortController();
    this.#closed = closed;
    const { res } = this;
    if (res.closed) {
      if (!res.writableFinished) closed.abort();
    } else {
      res.once("close", () => {
        if (!res.writableFinished) closed.abort();
      });
    }
    return closed.signal;
  }
}

function writeRaw(res: ServerResponse, result: RawResponse): void {
  res.writeHead(result.status, result.headers);
  res.end(result.body);
}

export function createRequestHandler(options: HandlerOptions): RequestHandler {
  const compiled = compile(options.routes);
  const { realm } = options;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = requestTarget(req.url ?? "/");
    const uploadPath = url.pathname.includes("/user_uploads/")
      ? url.pathname.replace(/^\/api\/v1(?=\/user_uploads\/)/, "")
      : url.pathname;
    if (req.method === "GET" && uploadPath.startsWith("/user_uploads/")) {
      const viaApi = uploadPath !== url.pathname;
      const credentials = parseBasicAuth(req.headers);
      const user = credentials ? authenticate(realm, credentials) : undefined;
      // The client sends the path's slashes encoded (%2F), as one path parameter.
      const path = viaApi ? uploadPath.replace(/%2F/gi, "/") : uploadPath;
      return writeRaw(res, serveUpload(realm, user, path, viaApi));
    }
    if (!url.pathname.startsWith("/api/v1/")) {
      if (options.extra && (await options.extra(req, res, parsedTarget(req.url ?? "/")))) return;
      return sendJson(res, 404, { result: "error", msg: "Not found", code: "BAD_REQUEST" });
    }
    const path = url.pathname.slice("/api/v1".length);
    const method = req.method ?? "GET";
    let match: { compiled: CompiledRoute; values: RegExpExecArray } | undefined;
    let pathExists = false;
    for (const candidate of compiled) {
      const values = candidate.pattern.exec(path);
      if (!values) continue;
      pathExists = true;
      if (candidate.route.endpoint.method === method) {
        match = { compiled: candidate, values };
        break;
      }
    }
    if (!match) {
      return pathExists
        ? sendJson(res, 405, {
            result: "error",
            msg: `Method ${method} not allowed`,
            code: "BAD_REQUEST",
          })
        : sendJson(res, 404, {
            result: "error",
            msg: `Endpoint ${path} does not exist`,
            code: "BAD_REQUEST",
          });
    }
    const { route, names, label } = match.compiled;
    const intercepted = options.intercept?.(req, res, label) ?? false;
    const fault = intercepted instanceof Promise ? await intercepted : intercepted;
    if (fault === true) return;

    const credentials = parseBasicAuth(req.headers);
    const user = credentials ? authenticate(realm, credentials) : undefined;
    if (!user && route.endpoint.auth === "required") throw notLoggedIn();
    if (user && options.rateLimiter) {
      // The event long poll spends from buckets of its own, as on a server (its Tornado process).
      const bucket = route.endpoint.path === "/events" ? "events" : "api";
      const { headers } = options.rateLimiter.check(user.userId, bucket);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    }

    const bodyLimit = (realm.settings.maxFileUploadSizeMib + 1) * 1024 * 1024;
    const body = await readBody(req, bodyLimit);
    // The body's fields over the query's; a POST has no query as a rule, its fields do as they are.
    const raw: Record<string, string> =
      url.searchParams.size === 0
        ? body.fields
        : { ...Object.fromEntries(url.searchParams), ...body.fields };
    names.forEach((name, i) => (raw[name] = decodePathValue(name, match.values[i + 1]!)));
    const { params, ignored } = decodeParams(route.endpoint.params, raw);

    const answer = route.handle(
      new RequestContext(
        res,
        realm,
        user,
        params,
        body.files,
        clientNameOf(req.headers["user-agent"]),
      ),
    );
    // Most routes answer at once: awaiting only a promise spares the others a turn of the queue.
    const result = answer instanceof Promise ? await answer : answer;
    // The route's effects stay; its answer is lost (`after` faults).
    if (fault !== false) return fault(res);
    if (result instanceof RawResponse) return writeRaw(res, result);
    const payload: Record<string, unknown> = { result: "success", msg: "", ...result };
    if (ignored.length > 0) payload.ignored_parameters_unsupported = ignored;
    sendJson(res, 200, payload);
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      // The client went away mid-request: nobody is left to answer, and it is no sandbox error.
      const gone = res.socket === null || res.socket.destroyed;
      if (gone && (error as NodeJS.ErrnoException).code === "ECONNRESET") return;
      if (error instanceof SandboxError)
        return sendJson(res, error.status, error.toBody(), error.headers);
      options.onError?.(error);
      sendJson(res, 500, { result: "error", msg: "Internal server error", code: "BAD_REQUEST" });
    });
  };
}
