// How the recorder hands exchanges to its thread: a flat array of strings and numbers, a fixed number of slots per exchange.
import type { HttpRequest, HttpResponse } from "../client/transport.js";
import { KEPT_HEADERS } from "./cassette.js";
import type { ExchangeRecord } from "./cassette-lines.js";

/**
 * Slots per exchange: seq, at, ms, method, path, endpoint, fields, multipart, status, body, error,
 * then one per kept header. A structured clone of an object writes each of its keys again, and
 * the thread builds each object back; of a flat array, only the values (the recorder alone on the
 * bot's thread: 2.7-3.0 -> 0.9 µs per exchange; bench/README.md, "Machinery and its A/B figures").
 */
export const SLOTS = 11 + KEPT_HEADERS.length;

export type Wire = (string | number | null)[];

/** Appends one exchange to `batch` (`body`: the answer's JSON text; `error`: why there was none). */
export function encodeExchange(
  batch: Wire,
  seq: number,
  at: number,
  ms: number,
  req: HttpRequest,
  res: HttpResponse | undefined,
  body: string | undefined,
  error: string | undefined,
): void {
  batch.push(
    seq,
    at,
    ms,
    req.method,
    req.path,
    req.endpoint,
    req.fields === undefined ? null : String(req.fields),
    req.body ? 1 : 0,
    res ? res.status : null,
    body ?? null,
    error ?? null,
  );
  for (const name of KEPT_HEADERS) {
    const value = res?.headers[name];
    batch.push(value === undefined ? null : Array.isArray(value) ? value[0]! : value);
  }
}

/** The exchanges of a batch, in order. */
export function decodeExchanges(batch: Wire): ExchangeRecord[] {
  const records: ExchangeRecord[] = [];
  for (let i = 0; i + SLOTS <= batch.length; i += SLOTS) {
    const record: ExchangeRecord = {
      seq: batch[i] as number,
      at: batch[i + 1] as number,
      ms: batch[i + 2] as number,
      method: batch[i + 3] as string,
      path: batch[i + 4] as string,
      endpoint: batch[i + 5] as string,
    };
    if (batch[i + 6] !== null) record.fields = batch[i + 6] as string;
    if (batch[i + 7] === 1) record.multipart = true;
    if (batch[i + 8] !== null) record.status = batch[i + 8] as number;
    if (batch[i + 9] !== null) record.body = batch[i + 9] as string;
    if (batch[i + 10] !== null) record.error = batch[i + 10] as string;
    let headers: Record<string, string> | undefined;
    KEPT_HEADERS.forEach((name, h) => {
      const value = batch[i + 11 + h];
      if (value !== null) (headers ??= {})[name] = value as string;
    });
    if (headers) record.headers = headers;
    records.push(record);
  }
  return records;
}
