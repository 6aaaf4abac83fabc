// Delivery IDs already taken: a bounded memory that lets a replayed webhook delivery be answered without posting twice.
import type { IncomingMessage } from "node:http";
import { headerValue } from "./auth.js";
import { createHash } from "node:crypto";

/**
 * Remembers up to `capacity` delivery IDs, forgetting the oldest first. `claim` takes an ID once;
 * `release` gives it back when handling failed, so the sender's retry is handled.
 */
export class DeliveryIds {
  readonly #capacity: number;
  readonly #ids = new Set<string>();

  constructor(capacity: number) {
    if (capacity < 1) throw new RangeError("capacity must be at least 1");
    this.#capacity = capacity;
  }

  /** Takes `id`; false when it was taken before (a replay). */
  claim(id: string): boolean {
    if (this.#ids.has(id)) return false;
    this.#ids.add(id);
    if (this.#ids.size > this.#capacity) this.#ids.delete(this.#ids.values().next().value!);
    return true;
  }

  /** Takes every key of one delivery; false, taking none, when any was taken before (a replay). */
  claimAll(keys: readonly string[]): boolean {
    if (keys.some((k) => this.#ids.has(k))) return false;
    for (const k of keys) this.claim(k);
    return true;
  }

  /** Forgets every key of one delivery (its handling failed). */
  releaseAll(keys: readonly string[]): void {
    for (const k of keys) this.release(k);
  }

  /** Forgets `id` (its handling failed). */
  release(id: string): void {
    this.#ids.delete(id);
  }
}

/**
 * What identifies one GitHub delivery: its `X-GitHub-Delivery` header, and the digest of its
 * signed body (the header is not signed, so a replay may change or drop it; the body it cannot).
 */
export function deliveryKeys(req: IncomingMessage, rawBody: Buffer): string[] {
  const keys = [`body:${createHash("sha256").update(rawBody).digest("base64")}`];
  const id = headerValue(req.headers, "x-github-delivery");
  if (id !== undefined) keys.push(`id:${id}`);
  return keys;
}
