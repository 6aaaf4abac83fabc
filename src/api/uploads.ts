// Uploads on the wire: POST /user_uploads, a multipart request carrying one file.
import type { Readable } from "node:stream";
import { z } from "zod";
import { optStr, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";

const isReadable = (value: unknown): value is Readable =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Readable).pipe === "function" &&
  typeof (value as Readable)[Symbol.asyncIterator] === "function";

/** What to upload: a file path, the bytes themselves, or a readable stream. */
export const uploadSource = z.union([
  z.string().min(1),
  z.instanceof(Uint8Array),
  z.custom<Readable>(isReadable, "must be a file path, a Buffer or a readable stream"),
]);
export type UploadSource = z.infer<typeof uploadSource>;

export const upload = endpoint({
  method: "POST",
  path: "/user_uploads",
  params: () =>
    z.object({
      file: uploadSource,
      /** Name to store; defaults to the path's basename, or `file` for buffers and streams. */
      filename: z.string().min(1).optional(),
      /** MIME type sent with the file; default `application/octet-stream`. */
      content_type: optStr,
    }),
  response: () =>
    z.looseObject({
      url: str,
      uri: optStr,
      filename: optStr,
    }),
  multipart: true,
  idempotent: false,
});
export type UploadParams = z.input<typeof upload.params>;
export type UploadResult = z.output<typeof upload.response>;

/**
 * GET /user_uploads/{realm_id_str}/{filename} through the API: not the bytes but a short-lived URL
 * (`/user_uploads/temporary/...`, about 60 s) that serves them without credentials, as the
 * server's `serve_file_url_backend`. `filename` is the rest of the path (`xx/random/name`).
 */
export const temporaryUrl = endpoint({
  method: "GET",
  path: "/user_uploads/{realm_id_str}/{filename}",
  params: () => z.object({ realm_id_str: z.string().regex(/^\d+$/), filename: z.string().min(1) }),
  response: () => z.looseObject({ url: str }),
});

export const uploadsEndpoints = { upload, temporaryUrl } as const;
