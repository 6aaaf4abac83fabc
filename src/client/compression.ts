// Compressed answers: what the client tells the server it reads (gzip, deflate, br) and how it decodes them.
import { brotliDecompress, gunzip, inflate } from "node:zlib";
import { promisify } from "node:util";

/** The `Accept-Encoding` of every request: a server's nginx compresses large JSON answers. */
export const ACCEPT_ENCODING = "gzip, deflate, br";

const decoders: Readonly<Record<string, (body: Buffer) => Promise<Buffer>>> = {
  gzip: promisify(gunzip),
  "x-gzip": promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

/**
 * The codings an answer's `Content-Encoding` lists, in the order they were applied; empty for
 * none or `identity`.
 */
export function contentCodings(headers: Record<string, string | string[] | undefined>): string[] {
  const raw = headers["content-encoding"];
  const value = Array.isArray(raw) ? raw.join(",") : raw;
  if (!value) return [];
  return value
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity");
}

/** An answer in a coding the client never offered. */
export class UnknownCodingError extends Error {
  override readonly name = "UnknownCodingError";
  constructor(readonly coding: string) {
    super(`the answer is in the encoding "${coding}", which the client does not read`);
  }
}

/**
 * A whole body decoded: the last coding applied is undone first. Runs on zlib's thread pool, so a
 * large answer does not hold up the event loop while it is inflated.
 */
export async function decodeBody(codings: readonly string[], body: Buffer): Promise<Buffer> {
  let out = body;
  for (let i = codings.length - 1; i >= 0; i--) {
    const decode = decoders[codings[i]!];
    if (!decode) throw new UnknownCodingError(codings[i]!);
    out = await decode(out);
  }
  return out;
}
