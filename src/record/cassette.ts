// The cassette: what a bot exchanged with its server, as JSON lines (docs/testing.md, "The cassette format").
import { readFileSync } from "node:fs";

export const CASSETTE_VERSION = 1;

/** The first line of every cassette file (and of every rotated one). */
export interface CassetteHeader {
  type: "cassette";
  version: number;
  /** ISO time the recording (or this file of it) started. */
  recordedAt: string;
  /** The server's origin, or `https://server.invalid` when sanitized. */
  site: string;
  /** topicbot's version that recorded it. */
  topicbot: string;
  sanitized: boolean;
  contentHashed: boolean;
  /** 1 for the first file of a recording; rotation numbers the next ones. */
  part: number;
}

/** The server's feature level and version, as the registration (or server settings) gave them. */
export interface CassetteServer {
  type: "server";
  featureLevel: number | null;
  version: string | null;
}

/** One request and its answer (or its network failure). */
export interface CassetteExchange {
  type: "exchange";
  /** Order of the request within the recording, from 1. */
  seq: number;
  /** Milliseconds from the start of the recording to the request. */
  at: number;
  /** Milliseconds until it was answered. */
  ms: number;
  method: string;
  /** Path under `/api/v1`, filled in, e.g. `/messages/17/reactions`. */
  path: string;
  /** The endpoint's template, e.g. `POST /messages/{message_id}/reactions`. */
  endpoint: string;
  /** The query of a GET, else the form fields, decoded (JSON values stay text, as sent). */
  fields: Record<string, string>;
  /** Set when the body was multipart (an upload): the file itself is not recorded. */
  multipart?: true;
  /** The answer; absent when the request failed without one. */
  status?: number;
  /** The answer's rate-limit and retry headers (others are not kept). */
  headers?: Record<string, string>;
  /** The answer's JSON body; for GET /events with every event of the batch in `events`. */
  body?: Record<string, unknown>;
  /** The request failed without an answer (a dropped connection, a timeout). */
  error?: { message: string };
}

export type CassetteLine = CassetteHeader | CassetteServer | CassetteExchange;

/** A cassette read back: its header, the server it talked to, its exchanges in order. */
export interface Cassette {
  header: CassetteHeader;
  server: CassetteServer | undefined;
  exchanges: CassetteExchange[];
}

export class CassetteError extends Error {
  override readonly name = "CassetteError";
}

/** The headers a cassette keeps: what retries and pacing read. */
export const KEPT_HEADERS = [
  "retry-after",
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
] as const;

/** Parses a cassette's text; `source` names it in errors. */
export function parseCassette(text: string, source = "cassette"): Cassette {
  let header: CassetteHeader | undefined;
  let server: CassetteServer | undefined;
  const exchanges: CassetteExchange[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    let line: CassetteLine;
    try {
      line = JSON.parse(raw) as CassetteLine;
    } catch {
      // A recording cut off mid-line (a killed bot) keeps every whole line before it.
      if (i === lines.length - 1 || lines.slice(i + 1).every((l) => l.trim() === "")) break;
      throw new CassetteError(`${source}:${i + 1}: not a JSON line`);
    }
    if (i === 0 || header === undefined) {
      if (line.type !== "cassette")
        throw new CassetteError(`${source}:${i + 1}: a cassette starts with its header line`);
      if (line.version !== CASSETTE_VERSION)
        throw new CassetteError(
          `${source}: cassette version ${line.version}, this topicbot reads version ${CASSETTE_VERSION}`,
        );
      header = line;
      continue;
    }
    if (line.type === "server") server = line;
    else if (line.type === "exchange") {
      if (typeof line.method !== "string" || typeof line.path !== "string")
        throw new CassetteError(`${source}:${i + 1}: an exchange needs method and path`);
      exchanges.push({ ...line, fields: line.fields ?? {} });
    } else if (line.type !== "cassette")
      throw new CassetteError(
        `${source}:${i + 1}: unknown line type ${JSON.stringify((line as { type?: unknown }).type)}`,
      );
  }
  if (!header) throw new CassetteError(`${source}: empty, not a cassette`);
  return { header, server, exchanges };
}

/** Reads a cassette file. */
export function readCassette(path: string): Cassette {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CassetteError(
      `cannot read cassette ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  return parseCassette(text, path);
}

/** The events of a GET /events exchange that was answered with a batch. */
export function eventsOf(exchange: CassetteExchange): Record<string, unknown>[] {
  if (exchange.path !== "/events" || exchange.method !== "GET") return [];
  const events = exchange.body?.events;
  return Array.isArray(events) ? (events as Record<string, unknown>[]) : [];
}

/** `METHOD /path?fields` in one line, for errors and reports. */
export function describeRequest(
  method: string,
  path: string,
  fields: Record<string, string>,
): string {
  const query = Object.entries(fields)
    .map(([k, v]) => `${k}=${v.length > 80 ? `${v.slice(0, 77)}...` : v}`)
    .join("&");
  return `${method} ${path}${query ? ` ${query}` : ""}`;
}

/**
 * For each recorded poll, the exchanges whose effects its events show: the sends whose answered
 * message ID is one of its message events.
 */
export function eventCauses(cassette: Cassette): Map<CassetteExchange, CassetteExchange[]> {
  const byMessageId = new Map<number, CassetteExchange>();
  for (const x of cassette.exchanges)
    if (x.method === "POST" && x.path === "/messages" && typeof x.body?.id === "number")
      byMessageId.set(x.body.id, x);
  const deps = new Map<CassetteExchange, CassetteExchange[]>();
  for (const x of cassette.exchanges) {
    const list: CassetteExchange[] = [];
    for (const event of eventsOf(x)) {
      const id = (event.message as { id?: unknown } | undefined)?.id;
      const cause = typeof id === "number" ? byMessageId.get(id) : undefined;
      if (cause) list.push(cause);
    }
    if (list.length > 0) deps.set(x, list);
  }
  return deps;
}
