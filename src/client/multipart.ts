// Multipart bodies for uploads: one file part streamed from a path, a Buffer or a readable stream.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { Readable } from "node:stream";
import { randomBytes } from "node:crypto";

export interface MultipartBody {
  contentType: string;
  /** The encoded body, produced lazily so a file is never held in memory whole. */
  stream: Readable;
  /** Bytes of the file part's content, when known in advance (paths and buffers). */
  fileSize?: number;
}

export interface FilePart {
  /** A path on disk, the bytes, or a readable stream. */
  file: string | Uint8Array | Readable;
  filename?: string;
  contentType?: string;
  /** Extra form fields sent before the file. */
  fields?: URLSearchParams;
}

/** Quotes a value for a `Content-Disposition` parameter (no CR/LF, quotes escaped). */
const quote = (value: string): string => `"${value.replace(/[\r\n]/g, " ").replace(/"/g, "%22")}"`;

/** Whether a file part can be encoded again for a retry (paths and buffers yes, streams no). */
export const isReplayable = (part: FilePart): boolean =>
  typeof part.file === "string" || part.file instanceof Uint8Array;

/** Encodes one file (and optional fields) as `multipart/form-data`, streaming the file's bytes. */
export async function encodeMultipart(part: FilePart): Promise<MultipartBody> {
  // Loaded here, where an upload needs it: node:crypto costs ~2 ms of every start (issue 17).
  const boundary = `----topicbot${randomBytes(12).toString("hex")}`;
  const filename = part.filename ?? (typeof part.file === "string" ? basename(part.file) : "file");
  const fileSize =
    typeof part.file === "string"
      ? (await stat(part.file)).size
      : part.file instanceof Uint8Array
        ? part.file.byteLength
        : undefined;
  const head: string[] = [];
  for (const [name, value] of part.fields ?? []) {
    head.push(
      `--${boundary}\r\nContent-Disposition: form-data; name=${quote(name)}\r\n\r\n${value}\r\n`,
    );
  }
  head.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename=${quote(filename)}\r\n` +
      `Content-Type: ${part.contentType ?? "application/octet-stream"}\r\n\r\n`,
  );
  const source = part.file;
  async function* body(): AsyncGenerator<Uint8Array> {
    yield Buffer.from(head.join(""));
    if (typeof source === "string") yield* createReadStream(source) as AsyncIterable<Buffer>;
    else if (source instanceof Uint8Array) yield source;
    else yield* source as AsyncIterable<Buffer>;
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    stream: Readable.from(body(), { objectMode: false }),
    fileSize,
  };
}
