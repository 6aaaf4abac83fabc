// Uploaded files: stored under a sanitised name, served only to the uploader or readers of a message that claimed them.
import { randomBytes } from "node:crypto";
import type { RealmState } from "./realmState.js";
import type { SandboxUser, StoredMessage } from "./model.js";

/** Upload paths in message content, as the server finds them to claim. */
const UPLOAD_PATH = /\/user_uploads\/\d+\/[0-9a-f]{2}\/[0-9a-f]+\/[^\s)\]"'<>]+/g;

export interface StoredUpload {
  /** Path under the server root: `/user_uploads/<realm>/<xx>/<random>/<name>`. */
  path: string;
  filename: string;
  mimeType: string;
  data: Buffer;
  ownerId: number;
}

/** The server's filename rule: NFKC, only word characters, spaces, dots and dashes, runs of spaces/dashes as one dash. */
export function sanitizeFilename(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const cleaned = base
    .normalize("NFKC")
    .replace(/[^\p{L}\p{N}_\s.-]/gu, "")
    .trim()
    .replace(/[-\s]+/g, "-");
  return cleaned === "" || cleaned === "." || cleaned === ".." ? "uploaded-file" : cleaned;
}

/** How long a temporary download URL works: the server's SIGNED_ACCESS_TOKEN_VALIDITY_IN_SECONDS. */
export const TEMPORARY_URL_SECONDS = 60;

export class UploadStore {
  readonly #files = new Map<string, StoredUpload>();
  /** Temporary download tokens (`/user_uploads/temporary/<token>/<name>`): path and expiry (ms). */
  readonly #tokens = new Map<string, { path: string; expiresAt: number }>();
  readonly #listeners = new Set<(upload: StoredUpload) => void>();
  /** Messages that claimed each file (the server's Attachment.messages). */
  readonly #claims = new Map<string, StoredMessage[]>();
  readonly #realmId = 2;

  add(owner: SandboxUser, filename: string, mimeType: string, data: Buffer): StoredUpload {
    const name = sanitizeFilename(filename);
    const random = randomBytes(12).toString("hex");
    const path = `/user_uploads/${this.#realmId}/${random.slice(0, 2)}/${random.slice(2)}/${encodeURIComponent(name)}`;
    const upload = { path, filename: name, mimeType, data, ownerId: owner.userId };
    this.#files.set(path, upload);
    for (const listener of this.#listeners) listener(upload);
    return upload;
  }

  /** Calls `listener` with every stored file; returns the unsubscribe function. */
  onAdd(listener: (upload: StoredUpload) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get(path: string): StoredUpload | undefined {
    return this.#files.get(path);
  }

  /**
   * A short-lived URL that serves the file without credentials, as the server's
   * `generate_unauthed_file_access_url`: `/user_uploads/temporary/<token>/<last path part>`.
   */
  temporaryUrl(upload: StoredUpload, now: number): string {
    for (const [token, entry] of this.#tokens)
      if (entry.expiresAt <= now) this.#tokens.delete(token);
    const token = randomBytes(24).toString("hex").toUpperCase();
    this.#tokens.set(token, { path: upload.path, expiresAt: now + TEMPORARY_URL_SECONDS * 1000 });
    return `/user_uploads/temporary/${token}/${upload.path.split("/").pop()!}`;
  }

  /**
   * The file behind a temporary URL's token and name, as `serve_file_unauthed_from_token`
   * checks them: an unknown or expired token is "Invalid token", another name "Invalid filename".
   */
  fromToken(
    token: string,
    name: string,
    now: number,
  ): StoredUpload | "Invalid token" | "Invalid filename" {
    const entry = this.#tokens.get(token);
    if (!entry || entry.expiresAt <= now) return "Invalid token";
    if (decodeURIComponent(entry.path.split("/").pop()!) !== name) return "Invalid filename";
    return this.#files.get(entry.path) ?? "Invalid token";
  }

  /**
   * Claims the files a message links, as the server does on send and edit: only files its sender
   * may read themselves. Linking someone else's file you cannot read shares nothing.
   */
  claim(realm: RealmState, message: StoredMessage): void {
    const sender = realm.users.get(message.senderId);
    // A fast path: content naming no upload (nearly every message) is not searched for one.
    if (!sender || !message.content.includes("/user_uploads/")) return;
    for (const [path] of message.content.matchAll(UPLOAD_PATH)) {
      const upload = this.#files.get(path);
      if (!upload || !this.canRead(realm, upload, sender)) continue;
      const claims = this.#claims.get(path) ?? [];
      if (!claims.includes(message)) claims.push(message);
      this.#claims.set(path, claims);
    }
  }

  /** The uploader, or anyone who can see a message that claimed the file. */
  canRead(realm: RealmState, upload: StoredUpload, user: SandboxUser): boolean {
    if (upload.ownerId === user.userId) return true;
    return (this.#claims.get(upload.path) ?? []).some((m) => realm.canSee(user, m));
  }
}
