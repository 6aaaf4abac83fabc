// The sandbox as a request handler: match a route, authenticate, decode parameters, answer JSON.
import type { IncomingMessage, ServerResponse } from "node:http";
import { clientNameOf } from "./send.js";
import { pathParamNames } from "../api/endpoint.js";
import { authenticate, notLoggedIn, parseBasicAuth } from "./auth.js";
import { readBody } from "./body.js";
import { SandboxError } from "./errors.js";
import { decodeParams } from "./params.js";
import type { RateLimiter } from "./ratelimit.js";
import type { Realm, SandboxUser } from "./realm.js";
import { RawResponse, type Route } from "./route.js";
import type { FaultOutcome } from "./faults.js";

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

/** Routes with fewer placeholders first, so `/messages/matches_narrow` wins over `/messages/{message_id}`. */
function compile(routes: readonly Route[]): CompiledRoute[] {
  return routes
    .map((route) => {
      const names = pathParamNames(route.endpoint.path);
      const source = route.endpoint.path
        .split(/\{\w+\}/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("([^/]+)");
      return { route, pattern: new RegExp(`^${source}/?$`), names };
    })
    .sort((a, b) => a.names.length - b.names.length);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
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
  rateLimiter?: RateLimiter;
  onError?: (error: unknown) => void;
}

/** GET of an uploaded file (`/user_uploads/...`, also under `/api/v1`), for its uploader or readers of a linking message. */
function serveUpload(realm: Realm, user: SandboxUser | undefined, path: string): RawResponse {
  if (!user)
    throw new SandboxError(
      "UNAUTHORIZED",
      "Not logged in: API authentication or user session required",
      {
        status: 401,
      },
    );
  const upload = realm.uploads.get(path);
  if (!upload || !realm.uploads.canRead(realm, upload, user))
    throw new SandboxError("BAD_REQUEST", "File not found", { status: 404 });
  return new RawResponse(
    200,
    {
      "content-type": upload.mimeType,
      "content-length": String(upload.data.length),
      "content-disposition": `attachment; filename="${upload.filename}"`,
    },
    upload.data,
  );
}

/** A path parameter's text; a broken %-escape (`%zz`) is a bad request naming the parameter. */
function decodePathValue(name: string, text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new SandboxError("BAD_REQUEST", `Invalid ${name}`);
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
    // A target such as `/\` is no path at all: the client's fault, so a 400, not a 500.
    if (!URL.canParse(req.url ?? "/", "http://sandbox.invalid"))
      throw new SandboxError("BAD_REQUEST", "Malformed request path");
    const url = new URL(req.url ?? "/", "http://sandbox.invalid");
    const uploadPath = url.pathname.replace(/^\/api\/v1(?=\/user_uploads\/)/, "");
    if (req.method === "GET" && uploadPath.startsWith("/user_uploads/")) {
      const credentials = parseBasicAuth(req.headers);
      const user = credentials ? authenticate(realm, credentials) : undefined;
      return writeRaw(res, serveUpload(realm, user, uploadPath));
    }
    if (!url.pathname.startsWith("/api/v1/")) {
      if (options.extra && (await options.extra(req, res, url))) return;
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
    const { route, names } = match.compiled;
    const fault =
      (await options.intercept?.(req, res, `${method} ${route.endpoint.path}`)) ?? false;
    if (fault === true) return;

    const credentials = parseBasicAuth(req.headers);
    const user = credentials ? authenticate(realm, credentials) : undefined;
    if (!user && route.endpoint.auth === "required") throw notLoggedIn();
    if (user && options.rateLimiter) {
      const { headers } = options.rateLimiter.check(user.userId);
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    }

    const bodyLimit = (realm.settings.maxFileUploadSizeMib + 1) * 1024 * 1024;
    const body = await readBody(req, bodyLimit);
    const raw: Record<string, string> = { ...Object.fromEntries(url.searchParams), ...body.fields };
    names.forEach((name, i) => (raw[name] = decodePathValue(name, match.values[i + 1]!)));
    const { params, ignored } = decodeParams(route.endpoint.params, raw);

    const closed = new AbortController();
    res.on("close", () => closed.abort());
    const result = await route.handle({
      realm,
      user,
      params,
      files: body.files,
      clientName: clientNameOf(req.headers["user-agent"]),
      signal: closed.signal,
    });
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
