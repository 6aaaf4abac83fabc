// The sandbox as a request handler: match a route, authenticate, decode parameters, answer JSON.
import type { IncomingMessage, ServerResponse } from "node:http";
import { pathParamNames } from "../api/endpoint.js";
import { authenticate, notLoggedIn, parseBasicAuth } from "./auth.js";
import { readBody } from "./body.js";
import { SandboxError } from "./errors.js";
import { decodeParams } from "./params.js";
import type { Realm } from "./realm.js";
import { RawResponse, type Route } from "./route.js";

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
  /** Called for every API request before its route runs; may answer it itself (fault injection). */
  intercept?: (
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: string,
  ) => boolean | Promise<boolean>;
  onError?: (error: unknown) => void;
}

export function createRequestHandler(options: HandlerOptions): RequestHandler {
  const compiled = compile(options.routes);
  const { realm } = options;
  const bodyLimit = (realm.settings.maxFileUploadSizeMib + 1) * 1024 * 1024;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sandbox.invalid");
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
    if (
      options.intercept &&
      (await options.intercept(req, res, `${method} ${route.endpoint.path}`))
    )
      return;

    const credentials = parseBasicAuth(req.headers);
    const user = credentials ? authenticate(realm, credentials) : undefined;
    if (!user && route.endpoint.auth === "required") throw notLoggedIn();

    const body = await readBody(req, bodyLimit);
    const raw: Record<string, string> = { ...Object.fromEntries(url.searchParams), ...body.fields };
    names.forEach((name, i) => (raw[name] = decodeURIComponent(match.values[i + 1]!)));
    const { params, ignored } = decodeParams(route.endpoint.params, raw);

    const closed = new AbortController();
    res.on("close", () => closed.abort());
    const result = await route.handle({
      realm,
      user,
      params,
      files: body.files,
      signal: closed.signal,
    });
    if (result instanceof RawResponse) {
      res.writeHead(result.status, result.headers);
      res.end(result.body);
      return;
    }
    const payload: Record<string, unknown> = { result: "success", msg: "", ...result };
    if (ignored.length > 0) payload.ignored_parameters_unsupported = ignored;
    sendJson(res, 200, payload);
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof SandboxError)
        return sendJson(res, error.status, error.toBody(), error.headers);
      options.onError?.(error);
      sendJson(res, 500, { result: "error", msg: "Internal server error", code: "BAD_REQUEST" });
    });
  };
}
