// createClient: one typed method per endpoint of the wire table, with validation, errors and retries.
import type { z } from "zod";
import type { Dispatcher } from "undici";
import { endpoints, type Endpoints } from "../api/index.js";
import { pathParamNames, type Endpoint } from "../api/endpoint.js";
import { encodeRequest } from "./encode.js";
import { encodeMultipart, isReplayable, type FilePart } from "./multipart.js";
import type { ArrayStream } from "./json-array-stream.js";
import { ApiError, InvalidArgumentError, ResponseShapeError } from "./errors.js";
import { sleep } from "./backoff.js";
import { Pacer, type PacingOptions } from "./pacing.js";
import { DEFAULT_RETRY, retryDelay, type RetryPolicy } from "./retry.js";
import { Transport, type RequestSender } from "./transport.js";
import type { ConnectionOptions } from "./connection.js";
import {
  fetchFile as fetchFileThrough,
  type FetchedFile,
  type FetchFileOptions,
} from "./file-fetch.js";

export interface ClientOptions extends ConnectionOptions {
  /** Server root URL, e.g. `https://chat.example.com`. */
  site: string;
  /** The bot's (or user's) API email. */
  email: string;
  apiKey: string;
  /** undici dispatcher used for every request (inject a MockAgent in unit tests). */
  dispatcher?: Dispatcher;
  /** Timeout of ordinary requests, in milliseconds. Default 30 s. */
  timeoutMs?: number;
  /**
   * Long-poll timeout in seconds: how long GET /events may stay unanswered. Set, it wins over the
   * registration's `event_queue_longpoll_timeout_seconds`; default 90 until a registration says otherwise.
   */
  longPollTimeoutSeconds?: number;
  retry?: Partial<RetryPolicy>;
  /** Slow down from the `X-RateLimit-*` headers before the server refuses; false turns it off. Default on. */
  pacing?: PacingOptions | false;
  userAgent?: string;
  /**
   * Wraps the transport every request goes through: the cassette recorder (`record:`) sees each
   * request and its answer, a lockdown replay answers them itself (src/record). Unset, requests go
   * straight to the transport, at no cost.
   */
  wrapTransport?: (transport: RequestSender) => RequestSender;
  /** Observes traffic (metrics): each attempt's outcome, and each wait for a rate limit. */
  onCall?: (event: CallEvent) => void;
}

/** What `onCall` sees; `endpoint` is the template, e.g. `PATCH /messages/{message_id}`. */
export type CallEvent =
  | { type: "response"; endpoint: string; status: number | "network"; ms: number }
  | { type: "rateLimitWait"; endpoint: string; ms: number };

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Retry 5xx and network failures even for a request that is not safe to repeat (e.g. sending). */
  retryUnsafe?: boolean;
  /** Set false to get the first failure as it is. */
  retry?: boolean;
  /**
   * Hands on a top-level array of the answer element by element as it arrives, reading no further
   * while `take` is busy (the body then holds an empty array there). The events loop uses it for
   * GET /events, so that a poll of thousands of events is never held whole.
   */
  stream?: ArrayStream;
}

/** Rate-limit state from the last response's `X-RateLimit-*` headers. */
export interface RateLimitState {
  limit?: number;
  remaining?: number;
  /** UNIX seconds when no limit applies any more. */
  reset?: number;
}

type Success<R extends z.ZodType> = z.output<R> & {
  result: "success";
  msg: string;
  ignored_parameters_unsupported?: string[];
};

type EndpointMethod<E> =
  E extends Endpoint<infer P, infer R>
    ? Record<never, never> extends z.input<P>
      ? (params?: z.input<P>, options?: CallOptions) => Promise<Success<R>>
      : (params: z.input<P>, options?: CallOptions) => Promise<Success<R>>
    : never;

export type NamespaceClient<N> = { readonly [K in keyof N]: EndpointMethod<N[K]> };
export type EndpointClients = { readonly [K in keyof Endpoints]: NamespaceClient<Endpoints[K]> };

export interface ApiClient extends EndpointClients {
  readonly site: string;
  readonly email: string;
  /** Calls any endpoint declared with `endpoint(...)`. */
  call<P extends z.ZodObject, R extends z.ZodType>(
    endpoint: Endpoint<P, R>,
    params: z.input<P>,
    options?: CallOptions,
  ): Promise<Success<R>>;
  /**
   * GETs a file the server serves (a path on the site, or a URL: an upload's temporary URL, an
   * avatar) through this client's connection (its proxy, CA and client certificate), following
   * redirects; with the credentials only when asked, and only to the site's own origin.
   */
  fetchFile(target: string | URL, options?: FetchFileOptions): Promise<FetchedFile>;
  /** Sets the long-poll timeout (seconds); registration responses set it automatically. */
  setLongPollTimeout(seconds: number): void;
  readonly longPollTimeoutMs: number;
  readonly rateLimit: Readonly<RateLimitState>;
  /**
   * The pacer of this client's requests (none with `pacing: false`): streamed answers share its
   * budget (`openStream`, `editInterval`, `editDelay`).
   */
  readonly pacer?: Pacer;
  close(): Promise<void>;
}

/** Where a validation issue points, as a parameter name such as `to` or `narrow[0].operand`. */
function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (out, key) =>
      typeof key === "number" ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key),
    "",
  );
}

function header(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): number | undefined {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const n = value === undefined ? NaN : Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** What a call needs to know about an endpoint beyond its declaration, worked out once. */
interface EndpointFacts {
  /** `METHOD /template/path`, for errors and observers. */
  name: string;
  /** Its declared parameter names: others pass through unvalidated. */
  known: ReadonlySet<string>;
  pathParams: readonly string[];
  /** POST /register: its response sets the long-poll timeout. */
  isRegister: boolean;
  /** How many times its params and its response went through zod (see `zodOptions`). */
  zodParses: { params: number; response: number };
}

/**
 * zod parses an endpoint's params (or response) without its JIT the first `PARSES_WITHOUT_JIT`
 * times. zod's JIT writes and compiles a checking function for each object schema at its first
 * parse (~85 KB of generated code for what a bot calls while it starts), which pays off only over
 * many parses. Most endpoints a bot calls at start-up are called once or twice (GET /users/me,
 * POST /register, GET /messages for the baseline and the catch-up); the ones it keeps calling
 * compile on their third call, after the first answer (issue 17, start-up). The checks are the same.
 */
const PARSES_WITHOUT_JIT = 2;
const WITHOUT_JIT = { jitless: true } as const;

function zodOptions(
  facts: EndpointFacts,
  part: "params" | "response",
): typeof WITHOUT_JIT | undefined {
  return facts.zodParses[part]++ < PARSES_WITHOUT_JIT ? WITHOUT_JIT : undefined;
}

const endpointFacts = new WeakMap<Endpoint, EndpointFacts>();

/** The options of a call given none (read only). */
const NO_OPTIONS: CallOptions = Object.freeze({});

function factsOf(ep: Endpoint): EndpointFacts {
  let facts = endpointFacts.get(ep);
  if (!facts) {
    facts = {
      name: `${ep.method} ${ep.path}`,
      known: new Set(Object.keys(ep.params.shape)),
      pathParams: pathParamNames(ep.path),
      isRegister: ep.method === "POST" && ep.path === endpoints.events.register.path,
      zodParses: { params: 0, response: 0 },
    };
    endpointFacts.set(ep, facts);
  }
  return facts;
}

/**
 * Creates a typed REST client.
 *
 * @example
 * const client = createClient({ site: "https://chat.example.com", email: "bot@example.com", apiKey });
 * const { id } = await client.messages.send({ type: "channel", to: "general", topic: "hi", content: "hello" });
 */
export function createClient(options: ClientOptions): ApiClient {
  const direct = new Transport(options);
  const transport: RequestSender = options.wrapTransport ? options.wrapTransport(direct) : direct;
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const timeoutMs = options.timeoutMs ?? 30_000;
  let longPollTimeoutMs = (options.longPollTimeoutSeconds ?? 90) * 1000;
  const rateLimit: RateLimitState = {};
  const pacing = options.pacing;
  // Pacing waits count as rate-limit waits for observers (metrics), like retry-after sleeps.
  const onWait = (endpoint: string, ms: number): void => {
    if (pacing) pacing.onWait?.(endpoint, ms);
    options.onCall?.({ type: "rateLimitWait", endpoint, ms });
  };
  const pacer = pacing === false ? undefined : new Pacer({ ...pacing, onWait });
  // The event long poll spends from a budget of its own on the server (its Tornado process has
  // separate buckets), so it is paced apart: its headers say nothing of the other requests' budget.
  const pollPacer =
    pacing === false
      ? undefined
      : new Pacer({ maxWaitMs: pacing?.maxWaitMs, now: pacing?.now, onWait });

  /** Takes the `X-RateLimit-*` headers of a response into `rateLimit` (not a poll's) and its pacer. */
  function observeRateLimit(
    headers: Record<string, string | string[] | undefined>,
    longPoll: boolean,
  ): void {
    const remaining = header(headers, "x-ratelimit-remaining");
    const reset = header(headers, "x-ratelimit-reset");
    if (longPoll) return pollPacer?.observe({ remaining, reset });
    const limit = header(headers, "x-ratelimit-limit");
    if (limit !== undefined) rateLimit.limit = limit;
    if (remaining !== undefined) rateLimit.remaining = remaining;
    if (reset !== undefined) rateLimit.reset = reset;
    pacer?.observe({ remaining, reset, limit });
  }

  /** `facts`: the endpoint's, when the caller holds them (the endpoint methods do: no lookup per call). */
  async function call<P extends z.ZodObject, R extends z.ZodType>(
    ep: Endpoint<P, R>,
    params: z.input<P> | undefined,
    callOptions: CallOptions = NO_OPTIONS,
    facts: EndpointFacts = factsOf(ep),
  ): Promise<Success<R>> {
    const name = facts.name;
    const input = (params ?? {}) as Record<string, unknown>;
    const checked = ep.params.safeParse(input, zodOptions(facts, "params"));
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      throw new InvalidArgumentError(name, issuePath(issue.path) || "(params)", issue.message);
    }
    // Unknown parameters pass through unvalidated; the server lists them in ignored_parameters_unsupported.
    const values: Record<string, unknown> = { ...(checked.data as object) };
    for (const key in input) if (!facts.known.has(key)) values[key] = input[key];
    // A multipart endpoint sends `file` (with `filename`, `content_type`) as the file part.
    let filePart: FilePart | undefined;
    if (ep.multipart) {
      const { file, filename, content_type } = values as {
        file: FilePart["file"];
        filename?: string;
        content_type?: string;
      };
      filePart = { file, filename, contentType: content_type };
      delete values.file;
      delete values.filename;
      delete values.content_type;
    }
    const { path, form } = encodeRequest(ep.path, values, facts.pathParams);
    const repeatable = (ep.idempotent ?? false) || callOptions.retryUnsafe === true;

    const onCall = options.onCall;
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      let answered = false;
      try {
        const lane = ep.longPoll ? pollPacer : pacer;
        if (lane) {
          const wait = lane.beforeRequest(name, callOptions.signal);
          if (wait) await wait;
        }
        const res = await transport.send({
          method: ep.method,
          path,
          fields: form,
          body: filePart
            ? await encodeMultipart({ ...filePart, fields: new URLSearchParams(form) })
            : undefined,
          authenticate: ep.auth !== "none",
          timeoutMs: callOptions.timeoutMs ?? (ep.longPoll ? longPollTimeoutMs : timeoutMs),
          signal: callOptions.signal,
          endpoint: name,
          stream: callOptions.stream,
        });
        answered = true;
        onCall?.({
          type: "response",
          endpoint: name,
          status: res.status,
          ms: performance.now() - started,
        });
        observeRateLimit(res.headers, ep.longPoll === true);
        if (res.status >= 400 || res.body.result !== "success") {
          const error = ApiError.fromBody(res.body, res.status, name);
          if (
            error.retryAfter === undefined &&
            (res.status === 429 || error.code === "RATE_LIMIT_HIT")
          ) {
            const seconds = header(res.headers, "retry-after");
            if (seconds !== undefined)
              (error.extra as Record<string, unknown>)["retry-after"] = seconds;
          }
          throw error;
        }
        const parsed = ep.response.safeParse(res.body, zodOptions(facts, "response"));
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          throw new ResponseShapeError(name, `${issuePath(issue.path)}: ${issue.message}`);
        }
        const data = parsed.data as Success<R>;
        if (facts.isRegister) {
          const seconds = (data as { event_queue_longpoll_timeout_seconds?: number })
            .event_queue_longpoll_timeout_seconds;
          // A timeout the caller set wins over the server's recommendation.
          if (seconds && options.longPollTimeoutSeconds === undefined)
            longPollTimeoutMs = seconds * 1000;
        }
        return data;
      } catch (error) {
        if (!answered && !callOptions.signal?.aborted)
          onCall?.({
            type: "response",
            endpoint: name,
            status: "network",
            ms: performance.now() - started,
          });
        if (callOptions.signal?.aborted || callOptions.retry === false) throw error;
        // A stream is consumed by the first attempt and cannot be sent again.
        if (filePart && !isReplayable(filePart)) throw error;
        const delay = retryDelay(error, attempt, repeatable, policy);
        if (delay === undefined) throw error;
        if (error instanceof ApiError && (error.code === "RATE_LIMIT_HIT" || error.status === 429))
          options.onCall?.({ type: "rateLimitWait", endpoint: name, ms: delay });
        await sleep(delay, callOptions.signal);
      }
    }
  }

  const namespaces: Record<string, Record<string, unknown>> = {};
  for (const [ns, group] of Object.entries(endpoints)) {
    namespaces[ns] = Object.fromEntries(
      Object.entries(group).map(([method, ep]) => {
        let facts: EndpointFacts | undefined;
        return [
          method,
          (params?: Record<string, unknown>, opts?: CallOptions) =>
            call(ep as Endpoint, params, opts, (facts ??= factsOf(ep as Endpoint))),
        ];
      }),
    );
  }

  return {
    ...(namespaces as unknown as EndpointClients),
    site: options.site,
    email: options.email,
    call: (ep, params, opts) => call(ep, params, opts),
    fetchFile: (target, opts) => fetchFileThrough(direct, target, opts),
    setLongPollTimeout(seconds: number) {
      longPollTimeoutMs = seconds * 1000;
    },
    get longPollTimeoutMs() {
      return longPollTimeoutMs;
    },
    rateLimit,
    ...(pacer && { pacer }),
    close: () => transport.close(),
  };
}
