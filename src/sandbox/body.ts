// Request bodies as real clients send them: url-encoded forms, or multipart forms with files (busboy).
import type { IncomingMessage } from "node:http";
import { finished } from "node:stream";
import busboy from "busboy";
import { SandboxError } from "./errors.js";

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Buffer;
}

export interface ParsedBody {
  fields: Record<string, string>;
  files: UploadedFile[];
}

/**
 * The raw bytes of a request body, refused past `limitBytes` (the request stream is destroyed, as
 * leaving an async iteration early would). Plain listeners rather than `for await`: the async
 * iterator costs a promise and its bookkeeping per chunk, a measurable share of a small request.
 * `finished` reports an aborted request with the error the iterator would throw.
 */
function readRaw(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      req.off("data", onData);
      req.destroy();
      reject(new SandboxError("BAD_REQUEST", "Request body too large", { status: 413 }));
    };
    req.on("data", onData);
    finished(req, (error) => {
      if (error) reject(error);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
  });
}

/** Reads the whole request body; the limit guards against runaway uploads. */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<ParsedBody> {
  const type = req.headers["content-type"] ?? "";
  if (type.startsWith("multipart/form-data")) return readMultipart(req, limitBytes);
  const text = (await readRaw(req, limitBytes)).toString("utf8");
  if (text === "") return { fields: {}, files: [] };
  if (type.startsWith("application/json")) {
    throw new SandboxError("BAD_REQUEST", "Request bodies are form-encoded, not JSON");
  }
  return { fields: Object.fromEntries(new URLSearchParams(text)), files: [] };
}

function readMultipart(req: IncomingMessage, limitBytes: number): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: limitBytes, fields: 1000 } });
    } catch (error) {
      reject(
        new SandboxError("BAD_REQUEST", `Malformed multipart body: ${(error as Error).message}`),
      );
      return;
    }
    parser.on("field", (name, value) => {
      fields[name] = value;
    });
    parser.on("file", (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("limit", () =>
        reject(
          new SandboxError("BAD_REQUEST", "Uploaded file is larger than allowed", { status: 413 }),
        ),
      );
      stream.on("end", () => {
        files.push({
          field,
          filename: info.filename ?? "file",
          mimeType: info.mimeType,
          data: Buffer.concat(chunks),
        });
      });
    });
    parser.on("error", (error: Error) =>
      reject(new SandboxError("BAD_REQUEST", `Malformed multipart body: ${error.message}`)),
    );
    parser.on("close", () => resolve({ fields, files }));
    req.pipe(parser);
  });
}
