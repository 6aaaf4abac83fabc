// What the recorder's thread makes of the exchanges it is sent: cassette lines, sanitized a batch at a time.
import { fieldsOf } from "../api/form.js";
import {
  CASSETTE_VERSION,
  type CassetteExchange,
  type CassetteHeader,
  type CassetteServer,
} from "./cassette.js";
import { ALIAS_SITE, Sanitizer, type SanitizeOptions } from "./sanitize.js";

/**
 * One request and its answer as the recorder's thread reads it off the wire (`exchange-wire.ts`):
 * text and numbers, nothing the bot's thread parsed and would have had to write out again.
 */
export type ExchangeRecord = Pick<
  CassetteExchange,
  "seq" | "at" | "ms" | "method" | "path" | "endpoint" | "multipart" | "status" | "headers"
> & {
  /** The query of a GET, else the form body, as form-encoded text. */
  fields?: string;
  /**
   * The answer's body as JSON text: as the server sent it when it was read whole, else the parsed
   * body written out (a large poll, with the events it handed on one by one).
   */
  body?: string;
  /** The request failed without an answer: why. */
  error?: string;
};

export interface CassetteLinesOptions extends SanitizeOptions {
  /** The server's site, kept in the header unless sanitized. */
  site: string;
  /** topicbot's version, for the header. */
  version?: string;
}

/**
 * Turns exchanges into the cassette's lines and a batch of lines into the text written for it
 * (sanitized as one text, `Sanitizer.json`), and knows what each file starts with (`preamble`).
 * The answer's body is parsed here and written out again as `JSON.stringify` writes it, whatever
 * spacing or escapes the server used: the sanitizer finds names, emails and secrets in text of
 * that one form.
 */
export class CassetteLines {
  readonly #sanitizer: Sanitizer;
  readonly #header: CassetteHeader;
  #server: CassetteServer | undefined;
  /** The last registration, written again at the top of each rotated file (sanitized, once written). */
  #lastRegister: string | undefined;
  /** The bot's own profile (GET /users/me), likewise. */
  #lastMe: string | undefined;
  /** The same two as made into lines, before their batch is sanitized. */
  #queuedRegister: string | undefined;
  #queuedMe: string | undefined;

  constructor(options: CassetteLinesOptions) {
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
  }

  /** The lines of one exchange: a `server` line first when its answer tells a new server version. */
  linesOf(record: ExchangeRecord): string[] {
    const exchange: CassetteExchange = {
      type: "exchange",
      seq: record.seq,
      at: record.at,
      ms: record.ms,
      method: record.method,
      path: record.path,
      endpoint: record.endpoint,
      fields: fieldsOf(record.fields),
    };
    if (record.multipart) exchange.multipart = true;
    const lines: string[] = [];
    if (record.status !== undefined) {
      exchange.status = record.status;
      if (record.headers) exchange.headers = record.headers;
      const body = record.body === undefined ? {} : (JSON.parse(record.body) as CassetteBody);
      exchange.body = body;
      const server = this.#serverLine(record, body);
      if (server) lines.push(server);
    } else exchange.error = { message: record.error ?? "no answer" };
    const line = JSON.stringify(exchange);
    lines.push(line);
    if (record.status === 200) {
      if (record.method === "POST" && record.path === "/register") this.#queuedRegister = line;
      else if (record.method === "GET" && record.path === "/users/me") this.#queuedMe = line;
    }
    return lines;
  }

  /** A batch's text: its lines sanitized as one text, each ending with a newline. */
  format(lines: string[]): string {
    const s = this.#sanitizer;
    // The last newline joined in too: a `+ "\n"` made a rope, which the sanitizer's first scan
    // copied whole again.
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

  /** The lines a cassette file starts with: the header, the server, and in a rotated file the bot's profile and registration again. */
  preamble(): string[] {
    this.#header.part++;
    this.#header.recordedAt = new Date().toISOString();
    const lines = [JSON.stringify(this.#header)];
    if (this.#server) lines.push(JSON.stringify(this.#server));
    if (this.#header.part > 1 && this.#lastMe) lines.push(this.#lastMe);
    if (this.#header.part > 1 && this.#lastRegister) lines.push(this.#lastRegister);
    return lines;
  }

  /** A `server` line when an answer tells the feature level and version for the first time (or new ones). */
  #serverLine(record: ExchangeRecord, body: CassetteBody): string | undefined {
    if (record.status !== 200) return undefined;
    if (!(record.path === "/register" || record.path === "/server_settings")) return undefined;
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
}

type CassetteBody = Record<string, unknown>;
