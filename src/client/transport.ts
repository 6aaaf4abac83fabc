// The one place that speaks HTTP to the server: undici with keep-alive, Basic auth, timeouts, JSON bodies.
import type { Readable } from "node:stream";
import { Agent, request, type Dispatcher } from "undici";
import { NetworkError } from "./errors.js";
import type { MultipartBody } from "./multipart.js";

export interface TransportOptions {
  /** Server root, e.g. `https://chat.example.com`; a trailing `/api/v1` is accepted too. */
  site: string;
  /** Basic credentials; omitted for endpoints that need none. */
  email?: string;
  apiKey?: string;
  /** undici dispatcher for every request; inject a MockAgent in unit tests. Defaults to a keep-alive Agent. */
  dispatcher?: Dispatcher;
  userAgent?: string;
}

export interface HttpRequest {
  method: string;
  /** Path under `/api/v1`, already filled in. */
  path: string;
  fields?: URLSearchParams;
  /** A ready multipart body (which carries the fields itself); replaces the form body. */
  body?: MultipartBody;
  authenticate: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  /** For error messages: `METHOD /template/path`. */
  endpoint: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** Normalises a site URL to the API root ending in `/api/v1`. */
export function apiRoot(site: string): string {
  const trimmed = site.replace(/\/+$/, "");
  return trimmed.endsWith("/api/v1") ? trimmed : `${trimmed}/api/v1`;
}

export class Transport {
  readonly root: string;
  readonly dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #authorization: string | undefined;
  readonly #userAgent: string;

  constructor(options: TransportOptions) {
    this.root = apiRoot(options.site);
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 64 });
    this.#authorization =
      options.email !== undefined && options.apiKey !== undefined
        ? `Basic ${Buffer.from(`${options.email}:${options.apiKey}`).toString("base64")}`
        : undefined;
    this.#userAgent = options.userAgent ?? "topicbot";
  }

  get hasCredentials(): boolean {
    return this.#authorization !== undefined;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const query = req.method === "GET" ? req.fields?.toString() : undefined;
    const url = `${this.root}${req.path}${query ? `?${query}` : ""}`;
    const headers: Record<string, string> = {
      "user-agent": this.#userAgent,
      accept: "application/json",
    };
    if (req.authenticate && this.#authorization) headers.authorization = this.#authorization;
    let body: string | Readable | undefined;
    if (req.body) {
      body = req.body.stream;
      headers["content-type"] = req.body.contentType;
    } else if (req.method !== "GET" && req.fields) {
      body = req.fields.toString();
      headers["content-type"] = "application/x-www-form-urlencoded";
    }

    const timeout = new AbortController();
    const timer = setTimeout(
      () =>
        timeout.abort(
          new NetworkError(`no answer within ${req.timeoutMs} ms`, { endpoint: req.endpoint }),
        ),
      req.timeoutMs,
    );
    const signal = req.signal ? AbortSignal.any([req.signal, timeout.signal]) : timeout.signal;
    try {
      const res = await request(url, {
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body,
        signal,
        dispatcher: this.dispatcher,
        headersTimeout: req.timeoutMs + 1_000,
        bodyTimeout: req.timeoutMs + 1_000,
      });
      const text = await res.body.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new NetworkError(`HTTP ${res.statusCode} with a body that is not JSON`, {
          endpoint: req.endpoint,
          status: res.statusCode,
        });
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new NetworkError(`HTTP ${res.statusCode} with a JSON body that is not an object`, {
          endpoint: req.endpoint,
          status: res.statusCode,
        });
      }
      return {
        status: res.statusCode,
        headers: res.headers,
        body: parsed as Record<string, unknown>,
      };
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason;
      if (error instanceof NetworkError) throw error;
      if (timeout.signal.aborted) throw timeout.signal.reason;
      const reason = error instanceof Error ? error.message : String(error);
      throw new NetworkError(`request failed: ${reason}`, { endpoint: req.endpoint, cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the connection pool if this transport created it. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.dispatcher.close();
  }
}
