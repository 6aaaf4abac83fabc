// The webhook receiver: an HTTP server routing POSTs by path to handlers, with auth, limits, health and metrics.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { silentLogger, type Logger } from "../log/logger.js";
import type { BotMetrics } from "../metrics/bot.js";
import { PROMETHEUS_CONTENT_TYPE } from "../metrics/registry.js";
import { authenticate, headerValue, precheck, type RouteAuth } from "./auth.js";
import { DeliveryIds, deliveryKeys } from "./deliveries.js";
import { TemplateError } from "./template.js";

/** What a route handler receives. */
export interface WebhookRequest {
  /** The route's path, e.g. `/hooks/ci`. */
  path: string;
  /** The parsed JSON body (routes with `json: true`, the default), else the body as text. */
  payload: unknown;
  rawBody: Buffer;
  /** Request headers, names in lower case. */
  headers: IncomingHttpHeaders;
  query: URLSearchParams;
}

/** Returns nothing (200 `{"ok":true}`), a JSON value (200 with it), or `respond(status, body)`. */
export type WebhookHandler = (request: WebhookRequest) => unknown;

export interface RouteOptions {
  auth: RouteAuth;
  /** Accept only JSON bodies (415 otherwise) and parse them (400 when malformed). Default true. */
  json?: boolean;
  /** Largest body accepted (413 beyond). Default: the receiver's `maxBodyBytes`. */
  maxBodyBytes?: number;
}

/** A route as plugins and config entries declare it, ready for `receiver.mount`. */
export interface RouteDefinition {
  path: string;
  options: RouteOptions;
  handler: WebhookHandler;
}

/** Thrown by a handler to answer with a status and a message (the message is sent to the caller). */
export class WebhookError extends Error {
  override readonly name = "WebhookError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A handler's explicit answer. */
export class WebhookResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** Answers with `status` and `body` (sent as JSON). */
export const respond = (status: number, body: unknown): WebhookResponse =>
  new WebhookResponse(status, body);

/** What the injected health function reports. */
export interface HealthReport {
  /** Whether the bot's event queue is registered and polling. */
  queueConnected: boolean;
  /** When the last event arrived (ms since the epoch or a Date), if any has. */
  lastEventAt?: number | Date | null;
  /** Overall verdict; default `queueConnected`. */
  healthy?: boolean;
  /** What works badly while the bot still runs (e.g. `storage`); the status is then `degraded`, still 200. */
  degraded?: string[];
  /** Why each part of `degraded` is, where known (`handlers`: which slots are stuck); shown as `reasons`. */
  reasons?: Record<string, string>;
  /** Cluster mode: the node's role, partitions, lag and lease age (shown as `cluster`). */
  cluster?: unknown;
  /** How the event loop's polls go (failing for how long, delivery stuck), shown as `polling`. */
  polling?: unknown;
}

export interface ReceiverOptions {
  /** Interface to listen on. Default 127.0.0.1 (loopback only). */
  host?: string;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  logger?: Logger;
  /** Default body cap for routes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Serves `/healthz`: 200 when healthy, 503 when not. */
  health?: () => HealthReport | Promise<HealthReport>;
  /** Serves `/metrics` from its registry and counts every answer. */
  metrics?: BotMetrics;
  /** Milliseconds since the epoch, for uptime. Default Date.now. */
  now?: () => number;
  /**
   * Most body bytes held at once for requests not yet authenticated (signature routes and
   * `none`); a request that would go past it gets 503. Default 16 MiB.
   */
  maxPendingBodyBytes?: number;
  /** Most requests not yet authenticated read at once; more get 503. Default 64. */
  maxPendingRequests?: number;
  /** GitHub delivery IDs remembered to answer a replay without posting. Default 1000. */
  rememberDeliveries?: number;
}

/** Requests not yet authenticated, and the body bytes they hold: the receiver's exposure to strangers. */
export interface PendingLoad {
  requests: number;
  bytes: number;
}

/** How often, at most, aborted clients are logged (with how many since the last line). */
const ABORT_LOG_INTERVAL_MS = 60_000;

const RESERVED = ["/healthz", "/metrics"];

interface Route extends RouteDefinition {
  maxBodyBytes: number;
  json: boolean;
}

/** What reading a body came to. */
type BodyRead =
  { kind: "ok"; body: Buffer } | { kind: "too-large" } | { kind: "busy" } | { kind: "aborted" };

function isJson(contentType: string | undefined): boolean {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || /^application\/[\w.+-]+\+json$/.test(type);
}

/**
 * Creates a webhook receiver. Routes are added before or after `listen`.
 *
 * @example
 * const receiver = createReceiver({ port: 8080, logger });
 * receiver.route("/hooks/ci", { auth: { type: "token", token } }, async ({ payload }) => {
 *   await send({ to: "ci", topic: "builds", content: JSON.stringify(payload) });
 * });
 * const { url } = await receiver.listen();
 */
/** Throws for a malformed or reserved route path (what `route` checks before its duplicates). */
export function checkRoutePath(path: string): void {
  if (!/^\/[\w\-./~%]*$/.test(path) || path.includes("//"))
    throw new Error(`webhook route "${path}": a path starts with / and has no query`);
  if (RESERVED.includes(path)) throw new Error(`webhook route "${path}": the path is reserved`);
}

export function createReceiver(options: ReceiverOptions = {}): WebhookReceiver {
  return new WebhookReceiver(options);
}

export class WebhookReceiver {
  readonly #options: ReceiverOptions;
  readonly #log: Logger;
  readonly #routes = new Map<string, Route>();
  readonly #startedAt: number;
  #server: Server | undefined;
  #url: string | undefined;
  readonly #pending: PendingLoad = { requests: 0, bytes: 0 };
  readonly #deliveries: DeliveryIds;
  #aborted = { count: 0, loggedAt: -Infinity };

  constructor(options: ReceiverOptions = {}) {
    this.#options = options;
    this.#log = (options.logger ?? silentLogger()).child({ component: "webhooks" });
    this.#startedAt = (options.now ?? Date.now)();
    // Two keys per delivery: its header and its body digest.
    this.#deliveries = new DeliveryIds(2 * (options.rememberDeliveries ?? 1000));
  }

  /** Requests being read before authentication and the bytes they hold (an internal gauge). */
  get pending(): Readonly<PendingLoad> {
    return { ...this.#pending };
  }

  /** Adds a POST route. Throws for a malformed, reserved or duplicate path. */
  route(path: string, options: RouteOptions, handler: WebhookHandler): this {
    checkRoutePath(path);
    if (this.#routes.has(path)) throw new Error(`webhook route "${path}": declared twice`);
    this.#routes.set(path, {
      path,
      options,
      handler,
      json: options.json ?? true,
      maxBodyBytes: options.maxBodyBytes ?? this.#options.maxBodyBytes ?? 1024 * 1024,
    });
    return this;
  }

  /** Removes the route at `path` (a reload's plugins no longer declare it); true when there was one. */
  unroute(path: string): boolean {
    return this.#routes.delete(path);
  }

  /** Whether the receiver is listening (`listen()` resolved and `close()` not called). */
  get listening(): boolean {
    return this.#server !== undefined;
  }

  /** Adds a route from its definition (what `githubRoute` or `configRoute` return). */
  mount(definition: RouteDefinition): this {
    return this.route(definition.path, definition.options, definition.handler);
  }

  /** The paths of the declared routes. */
  routes(): string[] {
    return [...this.#routes.keys()];
  }

  /** The base URL once listening, e.g. `http://127.0.0.1:8080`. */
  get url(): string | undefined {
    return this.#url;
  }

  /** The request handler, for mounting elsewhere or calling in-process. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    void this.#dispatch(req, res).catch((error: unknown) => {
      this.#log.error({ err: error }, "webhook receiver: unexpected error");
      if (!res.headersSent) this.#send(res, "unmatched", 500, { error: "internal error" });
      else res.destroy();
    });
  };

  /** Starts listening; resolves with the URL. */
  async listen(): Promise<{ url: string }> {
    if (this.#server) throw new Error("the webhook receiver is already listening");
    const server = createServer(this.handle);
    server.requestTimeout = 30_000;
    server.headersTimeout = 15_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.#options.port ?? 0, this.#options.host ?? "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.#server = server;
    const address = server.address() as AddressInfo;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    this.#url = `http://${host}:${address.port}`;
    this.#log.info({ url: this.#url, routes: this.routes() }, "webhook receiver listening");
    return { url: this.#url };
  }

  /** Stops listening and closes open connections. */
  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.#logAborted(true);
  }

  /** Counts a client gone before sending its whole body; logs the count at most once a minute. */
  #noteAborted(): void {
    this.#aborted.count++;
    this.#logAborted(false);
  }

  #logAborted(flush: boolean): void {
    const now = (this.#options.now ?? Date.now)();
    if (this.#aborted.count === 0) return;
    if (!flush && now - this.#aborted.loggedAt < ABORT_LOG_INTERVAL_MS) return;
    this.#log.debug(
      { aborted: this.#aborted.count },
      "webhook clients went away before sending their whole body",
    );
    this.#aborted = { count: 0, loggedAt: now };
  }

  /** Refuses a request without reading its body: the answer closes the connection. */
  #refuse(req: IncomingMessage, res: ServerResponse, path: string, status: number, body: unknown) {
    res.setHeader("connection", "close");
    req.resume();
    this.#send(res, path, status, body);
  }

  #send(res: ServerResponse, route: string, status: number, body: unknown, type?: string): void {
    const text = type ? String(body) : JSON.stringify(body ?? { ok: true });
    res.statusCode = status;
    res.setHeader("content-type", type ?? "application/json");
    res.setHeader("content-length", Buffer.byteLength(text));
    res.end(text);
    this.#options.metrics?.webhookRequest(route, status);
  }

  async #dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? "GET";
    // A target such as `/\` or `//` is no path at all; that is the caller's fault, not ours.
    if (!URL.canParse(req.url ?? "/", "http://receiver")) {
      req.resume();
      return this.#send(res, "unmatched", 400, { error: "malformed request path" });
    }
    const url = new URL(req.url ?? "/", "http://receiver");
    const path = url.pathname;

    if (path === "/healthz" || (path === "/metrics" && this.#options.metrics)) {
      if (method !== "GET" && method !== "HEAD") {
        res.setHeader("allow", "GET, HEAD");
        return this.#send(res, path, 405, { error: `use GET on ${path}` });
      }
      return path === "/healthz" ? this.#health(res) : this.#metrics(res);
    }

    const route = this.#routes.get(path);
    if (!route) {
      req.resume();
      return this.#send(res, "unmatched", 404, { error: `no webhook route at ${path}` });
    }
    if (method !== "POST") {
      req.resume();
      res.setHeader("allow", "POST");
      return this.#send(res, path, 405, { error: `use POST on ${path}` });
    }
    if (route.json && !isJson(req.headers["content-type"])) {
      req.resume();
      return this.#send(res, path, 415, {
        error: `${path} takes application/json, not ${req.headers["content-type"] ?? "no content type"}`,
      });
    }
    const query = url.searchParams;
    // A missing or malformed credential is refused before a byte of the body is read.
    const early = precheck(route.options.auth, { headers: req.headers, query });
    if (!early.ok) {
      this.#log.warn(
        { route: path, reason: early.reason, remote: req.socket.remoteAddress },
        "webhook rejected: authentication failed",
      );
      return this.#refuse(req, res, path, 401, { error: "authentication failed" });
    }
    // Until the signature is checked the sender is a stranger: bound what strangers hold at once.
    const stranger = route.options.auth.type !== "token";
    const maxRequests = this.#options.maxPendingRequests ?? 64;
    if (stranger && this.#pending.requests >= maxRequests) {
      res.setHeader("retry-after", "1");
      return this.#refuse(req, res, path, 503, { error: "too many requests in progress" });
    }
    if (stranger) this.#pending.requests++;
    let read: BodyRead;
    try {
      read = await this.#readBody(req, route.maxBodyBytes, stranger);
    } finally {
      if (stranger) this.#pending.requests--;
    }
    if (read.kind === "aborted") return this.#noteAborted();
    if (read.kind === "too-large")
      return this.#refuse(req, res, path, 413, {
        error: `body larger than ${route.maxBodyBytes} bytes`,
      });
    if (read.kind === "busy") {
      res.setHeader("retry-after", "1");
      return this.#refuse(req, res, path, 503, { error: "too many request bytes in progress" });
    }
    const rawBody = read.body;
    const auth = authenticate(route.options.auth, { rawBody, headers: req.headers, query });
    if (stranger) this.#pending.bytes -= rawBody.length;
    if (!auth.ok) {
      this.#log.warn(
        { route: path, reason: auth.reason, remote: req.socket.remoteAddress },
        "webhook rejected: authentication failed",
      );
      return this.#send(res, path, 401, { error: "authentication failed" });
    }

    let payload: unknown = rawBody.toString("utf8");
    if (route.json) {
      try {
        payload = JSON.parse(payload as string);
      } catch (error) {
        return this.#send(res, path, 400, {
          error: `malformed JSON: ${(error as Error).message}`,
        });
      }
    }

    // GitHub redelivers (and anyone holding a signed request can replay it): post each delivery
    // once. The delivery header is not signed, so a replay could carry a fresh one: the signed
    // body's digest is remembered too, and either seen before makes a replay.
    const replayKeys = route.options.auth.type === "github" ? deliveryKeys(req, rawBody) : [];
    if (!this.#deliveries.claimAll(replayKeys)) {
      const delivery = headerValue(req.headers, "x-github-delivery");
      this.#log.info({ route: path, delivery }, "webhook delivery seen before: not posted again");
      return this.#send(res, path, 200, { ok: true, duplicate: true });
    }
    let result: unknown;
    try {
      result = await route.handler({ path, payload, rawBody, headers: req.headers, query });
    } catch (error) {
      this.#deliveries.releaseAll(replayKeys);
      if (error instanceof WebhookError) {
        this.#log.warn(
          { route: path, status: error.status, reason: error.message },
          "webhook refused",
        );
        return this.#send(res, path, error.status, { error: error.message });
      }
      if (error instanceof TemplateError) {
        this.#log.warn({ route: path, field: error.field }, error.message);
        return this.#send(res, path, 422, { error: error.message });
      }
      this.#log.error({ route: path, err: error }, "webhook handler failed");
      return this.#send(res, path, 500, { error: "internal error" });
    }
    if (result instanceof WebhookResponse && result.status >= 400)
      this.#deliveries.releaseAll(replayKeys);
    this.#log.debug({ route: path }, "webhook handled");
    if (result instanceof WebhookResponse) return this.#send(res, path, result.status, result.body);
    return this.#send(res, path, 200, result);
  }

  /**
   * Reads the body, stopping as soon as it exceeds `max` bytes, or (for a stranger, whose bytes
   * count in the pending gauge) as soon as strangers together would hold more than the cap.
   * A stranger's bytes stay counted on success; the caller releases them after authentication.
   */
  #readBody(req: IncomingMessage, max: number, stranger: boolean): Promise<BodyRead> {
    const declared = Number(req.headers["content-length"]);
    if (Number.isFinite(declared) && declared > max) return Promise.resolve({ kind: "too-large" });
    const cap = this.#options.maxPendingBodyBytes ?? 16 * 1024 * 1024;
    const pending = this.#pending;
    return new Promise<BodyRead>((resolve) => {
      let chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const finish = (read: BodyRead): void => {
        if (settled) return;
        settled = true;
        req.off("data", onData);
        if (read.kind !== "ok") {
          if (stranger) pending.bytes -= size;
          chunks = [];
          req.resume(); // the rest is read and dropped, never held
        }
        resolve(read);
      };
      const onData = (chunk: Buffer): void => {
        if (size + chunk.length > max) return finish({ kind: "too-large" });
        if (stranger && pending.bytes + chunk.length > cap) return finish({ kind: "busy" });
        size += chunk.length;
        if (stranger) pending.bytes += chunk.length;
        chunks.push(chunk);
      };
      req.on("data", onData);
      req.once("end", () => finish({ kind: "ok", body: Buffer.concat(chunks) }));
      req.once("error", () => finish({ kind: "aborted" }));
      req.once("close", () => finish({ kind: "aborted" }));
    });
  }

  async #health(res: ServerResponse): Promise<void> {
    const now = (this.#options.now ?? Date.now)();
    const uptimeSeconds = Math.round((now - this.#startedAt) / 1000);
    const probe = this.#options.health;
    if (!probe) return this.#send(res, "/healthz", 200, { status: "ok", uptimeSeconds });
    let report: HealthReport;
    try {
      report = await probe();
    } catch (error) {
      this.#log.error({ err: error }, "health check failed");
      return this.#send(res, "/healthz", 503, { status: "unhealthy", uptimeSeconds });
    }
    const healthy = report.healthy ?? report.queueConnected;
    const last = report.lastEventAt;
    const degraded = report.degraded ?? [];
    this.#send(res, "/healthz", healthy ? 200 : 503, {
      status: !healthy ? "unhealthy" : degraded.length > 0 ? "degraded" : "ok",
      ...(degraded.length > 0 ? { degraded } : {}),
      ...(report.reasons && Object.keys(report.reasons).length > 0
        ? { reasons: report.reasons }
        : {}),
      queueConnected: report.queueConnected,
      lastEventAt: last === undefined || last === null ? null : new Date(last).toISOString(),
      uptimeSeconds,
      ...(report.cluster === undefined ? {} : { cluster: report.cluster }),
      ...(report.polling === undefined ? {} : { polling: report.polling }),
    });
  }

  async #metrics(res: ServerResponse): Promise<void> {
    const text = await this.#options.metrics!.registry.expose();
    this.#send(res, "/metrics", 200, text, PROMETHEUS_CONTENT_TYPE);
  }
}
