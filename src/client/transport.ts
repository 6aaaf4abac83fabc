// The one place that speaks HTTP to the server: undici with keep-alive, Basic auth, timeouts, JSON bodies.
import type { Readable } from "node:stream";
import { Agent, type Dispatcher } from "undici";
import { NetworkError } from "./errors.js";
import type { MultipartBody } from "./multipart.js";
import {
  ArrayStreamConsumerError,
  readArrayStream,
  type ArrayStream,
} from "./json-array-stream.js";

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
  /** Reads a 200 answer's top-level array element by element, with backpressure (GET /events). */
  stream?: ArrayStream;
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

/**
 * Timeouts this long or longer are left to undici's own `headersTimeout` and `bodyTimeout`, which
 * run on its coarse timers (up to about a second late). A shorter one gets a timer and an
 * AbortController of its own, which are precise but cost as much as the rest of a request to a
 * nearby server: only the rare short timeout pays for them, not every reply and poll.
 */
const COARSE_TIMEOUT_FROM_MS = 2_000;

/** undici's codes for a timeout it enforced (`headersTimeout`, `bodyTimeout`). */
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/** The declared size of a body, if the answer has a usable `content-length`. */
function contentLength(headers: Record<string, string | string[] | undefined>): number | undefined {
  const value = Number(headers["content-length"]);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

export class Transport {
  readonly root: string;
  readonly dispatcher: Dispatcher;
  /** `scheme://host:port` of the root: requests name it instead of a URL undici would parse. */
  readonly #origin: string;
  /** The root's path, e.g. `/api/v1`, that every request path goes under. */
  readonly #base: string;
  readonly #ownsDispatcher: boolean;
  /** The headers of every request, built once (the authorization one when credentials are set). */
  readonly #headers: Record<string, string>;
  readonly #anonymousHeaders: Record<string, string>;

  constructor(options: TransportOptions) {
    this.root = apiRoot(options.site);
    const url = new URL(this.root);
    this.#origin = url.origin;
    this.#base = url.pathname.replace(/\/+$/, "");
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher =
      options.dispatcher ??
      new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 64 });
    this.#anonymousHeaders = {
      "user-agent": options.userAgent ?? "topicbot",
      accept: "application/json",
    };
    this.#headers =
      options.email !== undefined && options.apiKey !== undefined
        ? {
            ...this.#anonymousHeaders,
            authorization: `Basic ${Buffer.from(`${options.email}:${options.apiKey}`).toString("base64")}`,
          }
        : this.#anonymousHeaders;
  }

  get hasCredentials(): boolean {
    return this.#headers !== this.#anonymousHeaders;
  }

  /**
   * Sends one request and reads its JSON body. An answer that does not start within `timeoutMs`,
   * or stalls that long, is a NetworkError (see COARSE_TIMEOUT_FROM_MS for how it is timed).
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const query = req.method === "GET" ? req.fields?.toString() : undefined;
    const path = `${this.#base}${req.path}${query ? `?${query}` : ""}`;
    const common = req.authenticate ? this.#headers : this.#anonymousHeaders;
    let headers = common;
    let body: string | Readable | undefined;
    if (req.body) {
      body = req.body.stream;
      headers = { ...common, "content-type": req.body.contentType };
    } else if (req.method !== "GET" && req.fields) {
      body = req.fields.toString();
      headers = { ...common, "content-type": "application/x-www-form-urlencoded" };
    }

    let timer: NodeJS.Timeout | undefined;
    let timeout: AbortController | undefined;
    let signal = req.signal;
    if (req.timeoutMs < COARSE_TIMEOUT_FROM_MS) {
      const precise = new AbortController();
      timer = setTimeout(
        () =>
          precise.abort(
            new NetworkError(`no answer within ${req.timeoutMs} ms`, { endpoint: req.endpoint }),
          ),
        req.timeoutMs,
      );
      timeout = precise;
      signal = req.signal ? AbortSignal.any([req.signal, precise.signal]) : precise.signal;
    }
    try {
      const res = await this.dispatcher.request({
        origin: this.#origin,
        path,
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body,
        signal,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      });
      let parsed: unknown;
      try {
        parsed =
          req.stream && res.statusCode === 200
            ? await readArrayStream(res.body, req.stream, contentLength(res.headers))
            : JSON.parse(await res.body.text());
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
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
      if (error instanceof ArrayStreamConsumerError) throw error.cause;
      if (timeout?.signal.aborted) throw timeout.signal.reason;
      if (TIMEOUT_CODES.has((error as { code?: unknown } | null)?.code as string))
        throw new NetworkError(`no answer within ${req.timeoutMs} ms`, {
          endpoint: req.endpoint,
          cause: error,
        });
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
