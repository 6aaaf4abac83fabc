// The recorder: wraps the client's transport and writes every request, answer and event batch to a cassette.
import type { HttpRequest, HttpResponse, RequestSender } from "../client/transport.js";
import {
  CASSETTE_VERSION,
  KEPT_HEADERS,
  type CassetteExchange,
  type CassetteHeader,
  type CassetteServer,
} from "./cassette.js";
import { fieldsOf } from "../api/form.js";
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
 * on to the real transport untouched; once answered, the exchange becomes its JSON line (one
 * JSON.stringify, so nothing of the request or answer is kept alive past it, and what is recorded
 * is the answer as it came), queued for the writer. The writer's batch (every few milliseconds)
 * is sanitized as one text (`Sanitizer.json`) and written in one write.
 */
export class Recorder {
  readonly #sanitizer: Sanitizer;
  readonly #writer: CassetteWriter<string>;
  readonly #header: CassetteHeader;
  readonly #started = performance.now();
  #seq = 0;
  #server: CassetteServer | undefined;
  /** The last registration, written again at the top of each rotated file (sanitized, once written). */
  #lastRegister: string | undefined;
  /** The bot's own profile (GET /users/me), likewise. */
  #lastMe: string | undefined;
  /** The same two as queued, before sanitizing. */
  #queuedRegister: string | undefined;
  #queuedMe: string | undefined;

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
      format: (lines) => this.#format(lines),
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
      this.#record(req, seq, started, undefined, events, error);
      throw error;
    }
    this.#record(req, seq, started, res, events, undefined);
    return res;
  }

  /** Queues the exchange's line (and a `server` line before it when the answer tells a new one). */
  #record(
    req: HttpRequest,
    seq: number,
    started: number,
    res: HttpResponse | undefined,
    events: unknown[] | undefined,
    error: unknown,
  ): void {
    const exchange: CassetteExchange = {
      type: "exchange",
      seq,
      at: Math.round(started - this.#started),
      ms: Math.round((performance.now() - started) * 10) / 10,
      method: req.method,
      path: req.path,
      endpoint: req.endpoint,
      fields: fieldsOf(req.fields),
    };
    if (req.body) exchange.multipart = true;
    if (res) {
      exchange.status = res.status;
      const headers = keptHeaders(res.headers);
      if (headers) exchange.headers = headers;
      let body = res.body;
      if (events && req.stream && Array.isArray(body[req.stream.field]))
        body = { ...body, [req.stream.field]: events };
      exchange.body = body;
      const server = this.#serverLine(req, res);
      if (server) this.#writer.write(server);
    } else {
      exchange.error = { message: error instanceof Error ? error.message : String(error) };
    }
    const line = JSON.stringify(exchange);
    this.#writer.write(line);
    if (res?.status === 200) {
      if (req.method === "POST" && req.path === "/register") this.#queuedRegister = line;
      else if (req.method === "GET" && req.path === "/users/me") this.#queuedMe = line;
    }
  }

  /** A batch's text: its lines sanitized as one text (`Sanitizer.json`). */
  #format(lines: string[]): string {
    const s = this.#sanitizer;
    // The last newline joined in too (into the writer's batch, given up after this): a `+ "\n"`
    // made a rope, which the sanitizer's first scan copied whole again (2.51 -> 2.18 KB
    // allocated by the recorder per exchange).
    lines.push("");
    const text = s.json(lines.join("\n"));
    // Sanitized again alone, to the same text (the batch taught the sanitizer all they hold).
    if (this.#queuedRegister !== undefined && lines.includes(this.#queuedRegister)) {
      this.#lastRegister = s.json(this.#queuedRegister);
      this.#queuedRegister = undefined;
    }
    if (this.#queuedMe !== undefined && lines.includes(this.#queuedMe)) {
      this.#lastMe = s.json(this.#queuedMe);
      this.#queuedMe = undefined;
    }
    return text;
  }

  /** A `server` line when an answer tells the feature level and version for the first time (or new ones). */
  #serverLine(req: HttpRequest, res: HttpResponse): string | undefined {
    const body = res.body;
    if (res.status !== 200) return undefined;
    if (!(req.path === "/register" || req.path === "/server_settings")) return undefined;
    const featureLevel =
      typeof body.zulip_feature_level === "number" ? body.zulip_feature_level : null;
    const raw = typeof body.zulip_version === "string" ? body.zulip_version : null;
    if (featureLevel === null && raw === null) return undefined;
    const s = this.#sanitizer;
    const version = raw !== null && s.enabled ? s.text(raw) : raw;
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
