// Request bodies as real clients send them: url-encoded forms, or multipart forms with files (busboy).
import type { IncomingMessage } from "node:http";
import busboy from "busboy";
import { formFields } from "../api/form.js";
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

/** A request that closed before its end (no wire error: nobody is left to read the answer). */
const prematureClose = (): Error => new Error("Premature close: the request ended before its body");

/**
 * The raw bytes of a request body, refused past `limitBytes` (the request stream is destroyed, as
 * leaving an async iteration early would). Plain listeners rather than `for await`: the async
 * iterator costs a promise and its bookkeeping per chunk, a measurable share of a small request.
 * An aborted request rejects with the error the iterator would throw (ECONNRESET "aborted"), one
 * closed before its end otherwise with a premature close; `end`, `error` and `close` are
 * listened to directly, which costs less than `finished` (a dozen listeners and their removal).
 */
function readRaw(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (req.readableEnded) return resolve(Buffer.alloc(0));
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limitBytes) return void chunks.push(chunk);
      settle();
      // Errors of the destroyed stream have no one left to hear them.
      req.on("error", () => {});
      req.destroy();
      reject(new SandboxError("BAD_REQUEST", "Request body too large", { status: 413 }));
    };
    const onEnd = (): void => {
      settle();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error): void => {
      settle();
      reject(error);
    };
    const onClose = (): void => {
      settle();
      reject(prematureClose());
    };
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onError);
    req.once("close", onClose);
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
  return { fields: formFields(text), files: [] };
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
