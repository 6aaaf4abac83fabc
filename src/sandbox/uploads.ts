// Uploaded files: stored under a sanitised name, served only to the uploader or readers of a message linking them.
import { randomBytes } from "node:crypto";
import type { Realm, SandboxUser } from "./realm.js";

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

export class UploadStore {
  readonly #files = new Map<string, StoredUpload>();
  readonly #listeners = new Set<(upload: StoredUpload) => void>();
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

  /** The uploader, or anyone who can see a message whose content links the file. */
  canRead(realm: Realm, upload: StoredUpload, user: SandboxUser): boolean {
    if (upload.ownerId === user.userId) return true;
    return realm.messages.some((m) => m.content.includes(upload.path) && realm.canSee(user, m));
  }
}
