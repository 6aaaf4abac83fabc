// The one place that speaks HTTP to the server: undici with keep-alive, Basic auth, timeouts, JSON bodies.
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { createDispatcher, proxyFor, redactProxy, type ConnectionOptions } from "./connection.js";
import { certificateError, clientCertificatePage, proxyRefusal } from "./connection-errors.js";
import { NetworkError } from "./errors.js";
import { ACCEPT_ENCODING, contentCodings, decodeBody } from "./compression.js";
import type { MultipartBody } from "./multipart.js";
import {
  ArrayStreamConsumerError,
  ArrayStreamReader,
  type ArrayStream,
} from "./json-array-stream.js";

export interface TransportOptions extends ConnectionOptions {
  /** Server root, e.g. `https://chat.example.com`; a trailing `/api/v1` is accepted too. */
  site: string;
  /** Basic credentials; omitted for endpoints that need none. */
  email?: string;
  apiKey?: string;
  /**
   * undici dispatcher for every request; inject a MockAgent in unit tests. Defaults to a keep-alive
   * Pool of the site's origin (through the proxy and with the TLS settings: `connection.ts`).
   */
  dispatcher?: Dispatcher;
  userAgent?: string;
}

export interface HttpRequest {
  method: string;
  /** Path under `/api/v1`, already filled in. */
  path: string;
  /** The fields: the query of a GET, else the form body; text already form-encoded, or a `URLSearchParams`. */
  fields?: string | URLSearchParams;
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
  /**
   * The body's text as it came (decoded when compressed), when it was read whole: every answer
   * but a large poll whose events were handed on one by one (`stream`). The cassette recorder
   * records it instead of writing the parsed body out again.
   */
  text?: string;
}

/**
 * What sends one request and reads its answer: the Transport, or a wrapper around it that a client
 * is given (`ClientOptions.wrapTransport`): the cassette recorder, which sees every request, and
 * the lockdown replayer, which answers them from a cassette (src/record).
 */
export interface RequestSender {
  send(req: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** Normalises a site URL to the API root ending in `/api/v1`. */
export function apiRoot(site: string): string {
  return `${site.replace(/\/+$/, "").replace(/\/api(\/v1)?$/, "")}/api/v1`;
}

/**
 * Timeouts this long or longer are left to undici's own `headersTimeout` and `bodyTimeout`, which
 * run on its coarse timers (up to about a second late). A shorter one gets a timer and an
 * AbortController of its own, which are precise but cost as much as the rest of a request to a
 * nearby server: only the rare short timeout pays for them, not every reply and poll.
 */
const COARSE_TIMEOUT_FROM_MS = 2_000;

const FORM = "application/x-www-form-urlencoded";

/** undici's codes for a timeout it enforced (`headersTimeout`, `bodyTimeout`). */
const TIMEOUT_CODES = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/** The declared size of a body, if the answer has a usable `content-length`. */
function contentLength(headers: Record<string, string | string[] | undefined>): number | undefined {
  const value = Number(headers["content-length"]);
  return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

export class Transport implements RequestSender {
  readonly root: string;
  readonly dispatcher: Dispatcher;
  /** `scheme://host:port` of the root: requests name it instead of a URL undici would parse. */
  readonly #origin: string;
  /** The root's path, e.g. `/api/v1`, that every request path goes under. */
  readonly #base: string;
  readonly #ownsDispatcher: boolean;
  /** " (through proxy URL)" when requests go through a proxy, for error messages. */
  readonly #via: string;
  /** The headers of every request, built once (the authorization one when credentials are set). */
  readonly #headers: Record<string, string>;
  readonly #anonymousHeaders: Record<string, string>;
  /** The same two with the form content type, for a body of fields (every reply sends one). */
  /** The authenticated headers without `accept-encoding`, for streamed answers. */
  readonly #streamHeaders: Record<string, string>;
  readonly #formHeaders: Record<string, string>;
  readonly #anonymousFormHeaders: Record<string, string>;
  /** The connection settings (proxy, TLS), for a dispatcher to another origin (`dispatcherFor`). */
  readonly #connection: ConnectionOptions;
  /** The dispatcher the caller gave (a MockAgent in tests), used for every origin. */
  readonly #given: Dispatcher | undefined;

  constructor(options: TransportOptions) {
    this.root = apiRoot(options.site);
    const url = new URL(this.root);
    this.#origin = url.origin;
    this.#base = url.pathname.replace(/\/+$/, "");
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#given = options.dispatcher;
    this.#connection = { proxy: options.proxy, tls: options.tls, env: options.env };
    this.dispatcher = options.dispatcher ?? createDispatcher(this.#origin, options);
    const proxy = options.dispatcher ? undefined : proxyFor(this.#origin, options);
    this.#via = proxy ? ` (through proxy ${redactProxy(proxy)})` : "";
    this.#anonymousHeaders = {
      "user-agent": options.userAgent ?? "topicbot",
      accept: "application/json",
      "accept-encoding": ACCEPT_ENCODING,
    };
    this.#headers =
      options.email !== undefined && options.apiKey !== undefined
        ? {
            ...this.#anonymousHeaders,
            authorization: `Basic ${Buffer.from(`${options.email}:${options.apiKey}`).toString("base64")}`,
          }
        : this.#anonymousHeaders;
    // A streamed answer (GET /events) is read element by element as it arrives, which a
    // compressed body read whole would undo: those requests ask for the body as it is.
    const { "accept-encoding": _, ...uncompressed } = this.#headers;
    this.#streamHeaders = uncompressed;
    this.#formHeaders = { ...this.#headers, "content-type": FORM };
    this.#anonymousFormHeaders = { ...this.#anonymousHeaders, "content-type": FORM };
  }

  get hasCredentials(): boolean {
    return this.#headers !== this.#anonymousHeaders;
  }

  /** `scheme://host:port` of the site. */
  get origin(): string {
    return this.#origin;
  }

  /** The headers of a request, with the credentials (the site's origin only) or without. */
  headers(authenticate: boolean): Readonly<Record<string, string>> {
    return authenticate ? this.#headers : this.#anonymousHeaders;
  }

  /**
   * A dispatcher for another origin with this transport's connection settings (its proxy, CA and
   * client certificate), for a redirect elsewhere (`file-fetch.ts`); the caller closes it. A
   * dispatcher the caller gave serves every origin, and is returned as it is (`owned: false`).
   */
  dispatcherFor(origin: string): { dispatcher: Dispatcher; owned: boolean } {
    if (this.#given) return { dispatcher: this.#given, owned: false };
    return { dispatcher: createDispatcher(origin, this.#connection), owned: true };
  }

  /** " (through proxy URL)" when requests go through a proxy, for error messages. */
  get via(): string {
    return this.#via;
  }

  /**
   * Sends one request and reads its JSON body. An answer that does not start within `timeoutMs`,
   * or stalls that long, is a NetworkError (see COARSE_TIMEOUT_FROM_MS for how it is timed).
   */
  async send(req: HttpRequest): Promise<HttpResponse> {
    const fields = typeof req.fields === "object" ? req.fields.toString() : req.fields;
    const query = req.method === "GET" ? fields : undefined;
    const path = `${this.#base}${req.path}${query ? `?${query}` : ""}`;
    const common = req.authenticate
      ? req.stream
        ? this.#streamHeaders
        : this.#headers
      : this.#anonymousHeaders;
    let headers = common;
    let body: string | Readable | undefined;
    if (req.body) {
      body = req.body.stream;
      headers = { ...common, "content-type": req.body.contentType };
    } else if (req.method !== "GET" && fields !== undefined) {
      body = fields;
      headers = req.authenticate ? this.#formHeaders : this.#anonymousFormHeaders;
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
      const options: Dispatcher.DispatchOptions = {
        origin: this.#origin,
        path,
        method: req.method as Dispatcher.HttpMethod,
        headers,
        body,
        headersTimeout: req.timeoutMs,
        bodyTimeout: req.timeoutMs,
      };
      let status = 0;
      let answerHeaders: HttpResponse["headers"] = {};
      let parsed: unknown;
      let text: string | undefined;
      let reader: ArrayStreamBodyReader | JsonBodyReader | undefined;
      try {
        if (typeof body === "object") {
          const res = await requestStreamText(this.dispatcher, options, signal);
          ({ statusCode: status, headers: answerHeaders, text } = res);
          parsed = JSON.parse(text);
        } else {
          reader = req.stream ? new ArrayStreamBodyReader(req.stream) : new JsonBodyReader();
          const res = await dispatchReading(this.dispatcher, options, signal, reader);
          ({ statusCode: status, headers: answerHeaders, body: parsed } = res);
          text = reader.text;
        }
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        status ||= reader?.statusCode ?? 0;
        const page = reader?.text ?? "";
        throw (
          clientCertificatePage(status, page, req.endpoint) ??
          new NetworkError(`HTTP ${status} with a body that is not JSON${this.#via}`, {
            endpoint: req.endpoint,
            status,
          })
        );
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new NetworkError(`HTTP ${status} with a JSON body that is not an object`, {
          endpoint: req.endpoint,
          status,
        });
      }
      return {
        status,
        headers: answerHeaders,
        body: parsed as Record<string, unknown>,
        text,
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
      const certificate = certificateError(error, req.endpoint);
      if (certificate) throw certificate;
      const reason =
        proxyRefusal(error) ?? (error instanceof Error ? error.message : String(error));
      throw new NetworkError(`request failed: ${reason}${this.#via}`, {
        endpoint: req.endpoint,
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the connection pool if this transport created it. */
  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.dispatcher.close();
  }
}

/** A response read whole as text by `requestText`. */
export interface TextResponse {
  statusCode: number;
  headers: HttpResponse["headers"];
  text: string;
}

/** What `dispatchReading` does with an answer's body as it arrives. */
interface BodyReader<T> {
  /** The final answer's status and headers, before its first chunk. */
  start(statusCode: number, headers: HttpResponse["headers"]): void;
  /** One chunk of the body; a promise pauses reading (and so the socket) until it settles. */
  data(chunk: Buffer): Promise<void> | undefined;
  end(): T | Promise<T>;
}

/** An answer read by `dispatchReading`. */
interface ReadResponse<T> {
  statusCode: number;
  headers: HttpResponse["headers"];
  body: T;
}

/**
 * `dispatcher.request(options)` with its body read by `reader`, for a request without a stream
 * body: the same answer and errors, without what `request` builds for every response and a bot
 * does not need (a Node stream for the body, an async-hooks resource, the promise plumbing of
 * reading the stream). Every reply and every poll goes through here, so this is the bulk of what
 * undici costs per reply. `signal` aborts the request (rejecting with its reason) as with
 * `request`; an error the reader throws aborts it and rejects with that error.
 */
function dispatchReading<T>(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
  reader: BodyReader<T>,
): Promise<ReadResponse<T>> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const handler = new ReadingHandler(reader, signal, resolve, reject);
    signal?.addEventListener("abort", handler, { once: true });
    try {
      dispatcher.dispatch(options, handler);
    } catch (error) {
      handler.fail(error);
    }
  });
}

/**
 * The dispatch handler of `dispatchReading`: one object per request, its steps methods on the
 * prototype, and itself the abort listener (`handleEvent`), where a handler of closures made eight
 * functions for every reply and poll.
 */
class ReadingHandler<T> implements Dispatcher.DispatchHandler {
  /** The caller's reader, or one decoding a compressed body into it (`DecodingReader`). */
  #reader: BodyReader<T>;
  readonly #signal: AbortSignal | undefined;
  readonly #resolve: (response: ReadResponse<T>) => void;
  readonly #reject: (error: unknown) => void;
  #statusCode = 0;
  #headers: HttpResponse["headers"] = {};
  #controller: Dispatcher.DispatchController | undefined;
  #aborted = false;
  #failed = false;

  constructor(
    reader: BodyReader<T>,
    signal: AbortSignal | undefined,
    resolve: (response: ReadResponse<T>) => void,
    reject: (error: unknown) => void,
  ) {
    this.#reader = reader;
    this.#signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** The signal aborted: the request is aborted with its reason. */
  handleEvent(): void {
    this.#aborted = true;
    this.#controller?.abort(this.#signal!.reason as Error);
  }

  #settle(): void {
    this.#signal?.removeEventListener("abort", this);
  }

  fail(error: unknown, c?: Dispatcher.DispatchController): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#settle();
    this.#reject(error);
    c?.abort(error as Error);
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.#controller = c;
    if (this.#aborted) c.abort(this.#signal!.reason as Error);
  }

  onResponseStart(
    c: Dispatcher.DispatchController,
    status: number,
    responseHeaders: HttpResponse["headers"],
  ): void {
    // An informational (1xx) answer is followed by the real one.
    if (status < 200) return;
    this.#statusCode = status;
    this.#headers = responseHeaders;
    const codings = contentCodings(responseHeaders);
    if (codings.length > 0) this.#reader = new DecodingReader(this.#reader, codings);
    try {
      this.#reader.start(status, responseHeaders);
    } catch (error) {
      this.fail(error, c);
    }
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#failed) return;
    try {
      const busy = this.#reader.data(chunk);
      if (busy) {
        c.pause();
        busy.then(
          () => c.resume(),
          (error: unknown) => this.fail(error, c),
        );
      }
    } catch (error) {
      this.fail(error, c);
    }
  }

  onResponseEnd(): void {
    if (this.#failed) return;
    this.#settle();
    const statusCode = this.#statusCode;
    const headers = this.#headers;
    try {
      const body = this.#reader.end();
      if (body instanceof Promise)
        body.then((b) => this.#resolve({ statusCode, headers, body: b }), this.#reject);
      else this.#resolve({ statusCode, headers, body });
    } catch (error) {
      this.#reject(error);
    }
  }

  onResponseError(_: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }
}

/**
 * A compressed body (`Content-Encoding`): read whole, decoded off the event loop, then handed to
 * `inner` as one chunk, with the headers of the decoded body (no encoding, no length). Only large
 * answers come compressed (registrations, long lists); replies and polls are too small for it.
 */
class DecodingReader<T> implements BodyReader<T> {
  readonly #inner: BodyReader<T>;
  readonly #codings: readonly string[];
  readonly #chunks: Buffer[] = [];
  constructor(inner: BodyReader<T>, codings: readonly string[]) {
    this.#inner = inner;
    this.#codings = codings;
  }
  start(statusCode: number, headers: HttpResponse["headers"]): void {
    const { "content-encoding": _coding, "content-length": _length, ...decoded } = headers;
    this.#inner.start(statusCode, decoded);
  }
  data(chunk: Buffer): undefined {
    this.#chunks.push(chunk);
    return undefined;
  }
  async end(): Promise<T> {
    const body = await decodeBody(this.#codings, Buffer.concat(this.#chunks));
    this.#chunks.length = 0;
    await this.#inner.data(body);
    return this.#inner.end();
  }
}

/** Reads a body whole, as `body.text()` would. */
class TextReader implements BodyReader<string> {
  readonly #chunks: Buffer[] = [];
  start(): void {}
  data(chunk: Buffer): undefined {
    this.#chunks.push(chunk);
    return undefined;
  }
  end(): string {
    return textOf(this.#chunks);
  }
}

/** The text of a body's chunks, as `body.text()` gives it. */
function textOf(chunks: readonly Buffer[]): string {
  const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8");
  // `body.text()` drops a byte order mark; so does this.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Reads a body whole and parses it as JSON: `requestText` and `JSON.parse` in one step, for the
 * answer of every reply, without the async step and the response object between them.
 */
class JsonBodyReader implements BodyReader<unknown> {
  readonly #chunks: Buffer[] = [];
  /** The answer's status, once it has started (for the error about a body that is not JSON). */
  statusCode = 0;
  /** The body's text once read (for the error about a body that is not JSON). */
  text: string | undefined;
  start(statusCode: number): void {
    this.statusCode = statusCode;
  }
  data(chunk: Buffer): undefined {
    this.#chunks.push(chunk);
    return undefined;
  }
  end(): unknown {
    this.text = textOf(this.#chunks);
    return JSON.parse(this.text);
  }
}

/** `dispatcher.request(options)` followed by `body.text()` (see `dispatchReading`). */
export async function requestText(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
): Promise<TextResponse> {
  const { statusCode, headers, body } = await dispatchReading(
    dispatcher,
    options,
    signal,
    new TextReader(),
  );
  return { statusCode, headers, text: body };
}

/**
 * Reads a 200 answer's top-level array with backpressure (GET /events, `json-array-stream.ts`):
 * while the consumer is busy the handler pauses, so the socket is not read. Any other answer is
 * read whole and parsed.
 */
class ArrayStreamBodyReader implements BodyReader<unknown> {
  readonly #stream: ArrayStream;
  #array: ArrayStreamReader | undefined;
  readonly #text = new TextReader();
  /** The answer's status, once it has started (for the error about a body that is not JSON). */
  statusCode = 0;
  #wholeText: string | undefined;
  constructor(stream: ArrayStream) {
    this.#stream = stream;
  }
  start(statusCode: number, headers: HttpResponse["headers"]): void {
    this.statusCode = statusCode;
    if (statusCode === 200)
      this.#array = new ArrayStreamReader(this.#stream, contentLength(headers));
  }
  data(chunk: Buffer): Promise<void> | undefined {
    return this.#array ? this.#array.push(chunk) : this.#text.data(chunk);
  }
  end(): unknown {
    if (this.#array) return this.#array.end();
    this.#wholeText = this.#text.end();
    return JSON.parse(this.#wholeText);
  }
  /** The body's text once read whole: any answer but a 200 whose array was split (a large poll). */
  get text(): string | undefined {
    return this.#array ? this.#array.text : this.#wholeText;
  }
}

/** The request with a stream body (multipart), through `request`, which also destroys the stream when the request fails. */
async function requestStreamText(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
): Promise<TextResponse> {
  const res = await dispatcher.request({ ...options, signal });
  const codings = contentCodings(res.headers);
  if (codings.length === 0)
    return { statusCode: res.statusCode, headers: res.headers, text: await res.body.text() };
  const body = await decodeBody(codings, Buffer.from(await res.body.arrayBuffer()));
  return { statusCode: res.statusCode, headers: res.headers, text: textOf([body]) };
}
