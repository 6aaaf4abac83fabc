// Downloading an uploaded file as a real server serves it: ask the API for a temporary URL, then fetch that.
import type { ApiClient, CallOptions } from "./client.js";
import { ApiError, InvalidArgumentError, NetworkError } from "./errors.js";

const ENDPOINT = "GET /user_uploads/temporary";

export interface DownloadedFile {
  /** The server's Content-Type for the file. */
  contentType: string;
  data: Buffer;
}

/** The realm ID and the rest of an upload path (`/user_uploads/<realm>/<rest>` or a full URL on the site). */
function uploadPathParts(path: string, site: string): { realm_id_str: string; filename: string } {
  const pathname = /^https?:\/\//.test(path) ? new URL(path).pathname : path;
  if (/^https?:\/\//.test(path) && new URL(path).origin !== new URL(site).origin)
    throw new InvalidArgumentError("downloadUpload", "path", `(${path}) is not on ${site}`);
  const match = /^\/user_uploads\/(\d+)\/(.+)$/.exec(pathname);
  if (!match)
    throw new InvalidArgumentError(
      "downloadUpload",
      "path",
      `(${path}) is no upload path: expected /user_uploads/<realm id>/...`,
    );
  return { realm_id_str: match[1]!, filename: decodeURIComponent(match[2]!) };
}

/**
 * Downloads an uploaded file (`/user_uploads/...`, as POST /user_uploads or a message links it):
 * GET /api/v1/user_uploads/... answers a temporary URL, which serves the bytes without
 * credentials (a server with S3 storage redirects it there), fetched through the client's own
 * connection, its proxy and CA. A missing file or one the account may not read fails as an
 * ApiError with HTTP status 404 or 403.
 */
export async function downloadUpload(
  client: ApiClient,
  path: string,
  options: CallOptions = {},
): Promise<DownloadedFile> {
  const parts = uploadPathParts(path, client.site);
  let url: string;
  try {
    ({ url } = await client.uploads.temporaryUrl(parts, options));
  } catch (error) {
    // The server answers a missing (404) or forbidden (403) file with an HTML page, not JSON.
    if (error instanceof NetworkError && (error.status === 403 || error.status === 404))
      throw new ApiError({
        code: "BAD_REQUEST",
        status: error.status,
        msg:
          error.status === 404
            ? `${path}: this file does not exist or has been deleted`
            : `${path}: this account is not authorized to view this file`,
        extra: {},
        endpoint: "GET /user_uploads/{realm_id_str}/{filename}",
      });
    throw error;
  }
  // Through the client's own connection (its proxy and CA), following a redirect to object storage.
  const res = await client.fetchFile(url, { signal: options.signal });
  const data = res.data;
  if (res.status !== 200) {
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(data.toString("utf8")) as Record<string, unknown>;
    } catch {
      // Not JSON: the status says it.
    }
    throw ApiError.fromBody({ msg: `HTTP ${res.status}`, ...body }, res.status, ENDPOINT);
  }
  const type = res.headers["content-type"];
  return {
    contentType: (Array.isArray(type) ? type[0] : type) ?? "application/octet-stream",
    data,
  };
}
