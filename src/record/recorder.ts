// The recorder: wraps the client's transport and writes every request, answer and event batch to a cassette.
import type { HttpRequest, HttpResponse, RequestSender } from "../client/transport.js";
import {
  CASSETTE_VERSION,
  KEPT_HEADERS,
  type CassetteExchange,
  type CassetteHeader,
  type CassetteServer,
} from "./cassette.js";
import { fieldsOf } from "./form-fields.js";
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

/** A header value JSON takes as it is (rate limits and retry delays are numbers). */
const PLAIN_HEADER = /^[\w .:-]*$/;

/** The answer's kept headers as the text of a cassette's `headers` field (`,"headers":{…}`), or "". */
function keptHeadersJson(headers: HttpResponse["headers"]): string {
  let out = "";
  for (const name of KEPT_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value[0]! : value;
    out += `${out ? "," : ""}"${name}":${PLAIN_HEADER.test(text) ? `"${text}"` : JSON.stringify(text)}`;
  }
  return out ? `,"headers":{${out}}` : "";
}

/** What the request path queues for one exchange: references only, formatted with its batch. */
interface Sent {
  req: HttpRequest;
  seq: number;
  started: number;
  ms: number;
  res: HttpResponse | undefined;
  events: unknown[] | undefined;
  error: unknown;
}

/**
 * Records a bot's traffic. `wrap` is what `ClientOptions.wrapTransport` takes: each request goes
 * on to the real transport untouched, and what it sent and got is queued by reference for the
 * writer. The writer's batch (every few milliseconds) is where the lines are made: JSON first,
 * then one sanitizing of the batch's whole text (`Sanitizer.json`). Answers are not changed after
 * they are handed back, so what the batch reads is what the server said.
 */
export class Recorder {
  readonly #sanitizer: Sanitizer;
  readonly #writer: CassetteWriter<Sent>;
  readonly #header: CassetteHeader;
  readonly #started = performance.now();
  #seq = 0;
  #server: CassetteServer | undefined;
  readonly #quotes = new Map<string, string>();
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
      format: (batch) => this.#format(batch),
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
      this.#writer.write({ req, seq, started, ms, res: undefined, events, error });
      throw error;
    }
    const ms = performance.now() - started;
    this.#writer.write({ req, seq, started, ms, res, events, error: undefined });
    return res;
  }

  /**
   * A batch's lines. Each exchange is a head the sanitizer never sees (type, order, timing,
   * method, endpoint, status, headers) and what it does see (path, fields, answer or error): the
   * latter of the whole batch are sanitized as one text, then each is joined to its head.
   */
  #format(batch: Sent[]): string {
    const lines: string[] = [];
    /** For each exchange, its head's place in `lines`. */
    const heads: number[] = [];
    const tails: string[] = [];
    let register = -1;
    let me = -1;
    for (const sent of batch) {
      const { req, res } = sent;
      let head = `{"type":"exchange","seq":${sent.seq},"at":${Math.round(sent.started - this.#started)},"ms":${Math.round(sent.ms * 10) / 10},"method":${this.#quoted(req.method)},"endpoint":${this.#quoted(req.endpoint)}`;
      if (req.body) head += ',"multipart":true';
      const tail: Partial<CassetteExchange> = { path: req.path, fields: fieldsOf(req.fields) };
      if (res) {
        head += `,"status":${res.status}${keptHeadersJson(res.headers)}`;
        let body = res.body;
        if (sent.events && req.stream && Array.isArray(body[req.stream.field]))
          body = { ...body, [req.stream.field]: sent.events };
        tail.body = body;
        const server = this.#serverLine(req, res);
        if (server) lines.push(server);
        if (res.status === 200) {
          if (req.method === "POST" && req.path === "/register") register = lines.length;
          else if (req.method === "GET" && req.path === "/users/me") me = lines.length;
        }
      } else {
        const error = sent.error;
        tail.error = { message: error instanceof Error ? error.message : String(error) };
      }
      heads.push(lines.length);
      lines.push(head);
      tails.push(JSON.stringify(tail));
    }
    const parts = this.#sanitizer.json(tails.join("\n")).split("\n");
    for (let i = 0; i < heads.length; i++) lines[heads[i]!] += `,${parts[i]!.slice(1)}`;
    if (register !== -1) this.#lastRegister = lines[register];
    if (me !== -1) this.#lastMe = lines[me];
    lines.push("");
    return lines.join("\n");
  }

  /** A method's or an endpoint's JSON text (a handful of them, each made once). */
  #quoted(text: string): string {
    let json = this.#quotes.get(text);
    if (json === undefined) this.#quotes.set(text, (json = JSON.stringify(text)));
    return json;
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
