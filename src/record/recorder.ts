// The recorder: wraps the client's transport and writes every request, answer and event batch to a cassette.
import type { HttpRequest, HttpResponse, RequestSender } from "../client/transport.js";
import {
  CASSETTE_VERSION,
  KEPT_HEADERS,
  type CassetteExchange,
  type CassetteHeader,
  type CassetteServer,
} from "./cassette.js";
import { ALIAS_SITE, Sanitizer, type SanitizeOptions } from "./sanitize.js";
import { CassetteWriter } from "./writer.js";

export interface RecorderOptions extends SanitizeOptions {
  /** The cassette file (JSON lines); rotated files get `.1`, `.2`, ... */
  path: string;
  /** The server's site, kept in the header unless sanitized. */
  site: string;
  /** Rotate past this many bytes (default 64 MiB). */
  maxBytes?: number;
  /** Rotated files kept (default 3). */
  keep?: number;
  /** topicbot's version, for the header. */
  version?: string;
  /** Writing failed (disk full, ...): the recording stops there, the bot goes on. */
  onError?: (error: unknown) => void;
}

/** The fields of a request as a plain object. */
function fieldsOf(req: HttpRequest): Record<string, string> {
  const fields = req.fields;
  if (fields === undefined) return {};
  const params = typeof fields === "string" ? new URLSearchParams(fields) : fields;
  const out: Record<string, string> = {};
  for (const [k, v] of params) out[k] = v;
  return out;
}

function keptHeaders(headers: HttpResponse["headers"]): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (value !== undefined) (out ??= {})[name] = Array.isArray(value) ? value[0]! : value;
  }
  return out;
}

/**
 * Records a bot's traffic. `wrap` is what `ClientOptions.wrapTransport` takes: each request goes
 * on to the real transport untouched, and what it sent and got is queued for the writer (the
 * sanitizing and JSON happen there, after the answer has been handed back).
 */
export class Recorder {
  readonly #sanitizer: Sanitizer;
  readonly #writer: CassetteWriter;
  readonly #header: CassetteHeader;
  readonly #started = performance.now();
  #seq = 0;
  #server: CassetteServer | undefined;
  /** The last registration, written again at the top of each rotated file. */
  #lastRegister: string | undefined;
  /** The bot's own profile (GET /users/me), likewise. */
  #lastMe: string | undefined;

  constructor(options: RecorderOptions) {
    this.#sanitizer = new Sanitizer(options);
    const sanitized = this.#sanitizer.enabled;
    this.#header = {
      type: "cassette",
      version: CASSETTE_VERSION,
      recordedAt: new Date().toISOString(),
      site: sanitized ? ALIAS_SITE : new URL(options.site).origin,
      topicbot: options.version ?? "unknown",
      sanitized,
      contentHashed: this.#sanitizer.hashContent,
      part: 0,
    };
    this.#writer = new CassetteWriter({
      path: options.path,
      maxBytes: options.maxBytes,
      keep: options.keep,
      onError: options.onError,
      preamble: () => {
        this.#header.part++;
        this.#header.recordedAt = new Date().toISOString();
        const lines = [JSON.stringify(this.#header)];
        if (this.#server) lines.push(JSON.stringify(this.#server));
        // A rotated file starts with the bot's profile and its last registration again.
        if (this.#header.part > 1 && this.#lastMe) lines.push(this.#lastMe);
        if (this.#header.part > 1 && this.#lastRegister) lines.push(this.#lastRegister);
        return lines;
      },
    });
  }

  /** Wraps a transport: `createClient({ ..., wrapTransport: (t) => recorder.wrap(t) })`. */
  wrap(inner: RequestSender): RequestSender {
    return {
      send: (req) => this.#send(inner, req),
      close: async () => {
        await inner.close();
        await this.close();
      },
    };
  }

  async #send(inner: RequestSender, req: HttpRequest): Promise<HttpResponse> {
    const seq = ++this.#seq;
    const started = performance.now();
    let events: unknown[] | undefined;
    let sent = req;
    const stream = req.stream;
    if (stream) {
      const collected: unknown[] = [];
      events = collected;
      sent = {
        ...req,
        stream: {
          field: stream.field,
          take(items) {
            for (const item of items) collected.push(item);
            return stream.take(items);
          },
        },
      };
    }
    let res: HttpResponse;
    try {
      res = await inner.send(sent);
    } catch (error) {
      const ms = performance.now() - started;
      this.#writer.write(() => this.#line(req, seq, started, ms, undefined, undefined, error));
      throw error;
    }
    const ms = performance.now() - started;
    this.#writer.write(() => this.#line(req, seq, started, ms, res, events, undefined));
    return res;
  }

  #line(
    req: HttpRequest,
    seq: number,
    started: number,
    ms: number,
    res: HttpResponse | undefined,
    events: unknown[] | undefined,
    error: unknown,
  ): string {
    const s = this.#sanitizer;
    const exchange: CassetteExchange = {
      type: "exchange",
      seq,
      at: Math.round(started - this.#started),
      ms: Math.round(ms * 10) / 10,
      method: req.method,
      path: s.enabled ? s.text(req.path) : req.path,
      endpoint: req.endpoint,
      fields: s.value(fieldsOf(req)) as Record<string, string>,
    };
    if (req.body) exchange.multipart = true;
    if (res) {
      exchange.status = res.status;
      const headers = keptHeaders(res.headers);
      if (headers) exchange.headers = headers;
      let body = res.body;
      if (events && req.stream && Array.isArray(body[req.stream.field]))
        body = { ...body, [req.stream.field]: events };
      exchange.body = s.value(body) as Record<string, unknown>;
    } else {
      const message = error instanceof Error ? error.message : String(error);
      exchange.error = { message: s.enabled ? s.text(message) : message };
    }
    const text = JSON.stringify(exchange);
    const prefix = this.#serverLine(exchange);
    if (res && res.status === 200) {
      if (req.method === "POST" && req.path === "/register") this.#lastRegister = text;
      else if (req.method === "GET" && req.path === "/users/me") this.#lastMe = text;
    }
    return prefix ? `${prefix}\n${text}` : text;
  }

  /** A `server` line when an answer tells the feature level and version for the first time (or new ones). */
  #serverLine(exchange: CassetteExchange): string | undefined {
    const body = exchange.body;
    if (!body || exchange.status !== 200) return undefined;
    if (!(exchange.path === "/register" || exchange.path === "/server_settings")) return undefined;
    const featureLevel =
      typeof body.zulip_feature_level === "number" ? body.zulip_feature_level : null;
    const version = typeof body.zulip_version === "string" ? body.zulip_version : null;
    if (featureLevel === null && version === null) return undefined;
    if (this.#server?.featureLevel === featureLevel && this.#server.version === version)
      return undefined;
    this.#server = { type: "server", featureLevel, version };
    return JSON.stringify(this.#server);
  }

  /** Resolves once everything recorded so far is on disk. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  close(): Promise<void> {
    return this.#writer.close();
  }
}
