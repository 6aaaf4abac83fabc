// Writes cassette lines to a file off the request path, bounded in size and rotated (cassette.jsonl, .1, .2, ...).
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";

export interface WriterOptions<T> {
  path: string;
  /** A file past this many bytes is rotated (default 64 MiB). */
  maxBytes?: number;
  /** Rotated files kept beside the current one (default 3): `path.1` is the newest. */
  keep?: number;
  /** The text of a batch of written items: whole lines, each ending with a newline. */
  format: (items: T[]) => string;
  /** The lines every file starts with (header, server, last registration): each file replays on its own. */
  preamble: () => string[];
  /** A write failed: the recording stops, the bot does not. */
  onError?: (error: unknown) => void;
}

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_KEEP = 3;
const FLUSH_EVERY_MS = 20;
/** Items formatted together at most: a batch's text stays small enough for V8's young generation. */
const MAX_BATCH = 256;

/**
 * Appends lines in batches: `write` only queues an item and schedules a flush a few milliseconds
 * later, where the whole batch is formatted at once (`format`) and written in one write; so a
 * request never waits on the disk, and sanitizing and JSON happen off its path. A crash loses
 * what is queued: at most the last few milliseconds.
 */
export class CassetteWriter<T> {
  readonly #options: WriterOptions<T>;
  readonly #maxBytes: number;
  readonly #keep: number;
  #queue: T[] = [];
  #file: FileHandle | undefined;
  #bytes = 0;
  #scheduled = false;
  #chain: Promise<void> = Promise.resolve();
  #failed = false;

  constructor(options: WriterOptions<T>) {
    this.#options = options;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#keep = options.keep ?? DEFAULT_KEEP;
    mkdirSync(dirname(options.path), { recursive: true });
  }

  /** Queues an item, formatted with its batch when it is flushed. */
  write(item: T): void {
    if (this.#failed) return;
    this.#queue.push(item);
    if (this.#queue.length === MAX_BATCH) {
      // A full batch is formatted now, and written while the next one fills.
      const items = this.#queue;
      this.#queue = [];
      this.#chain = this.#chain.then(() => this.#flush(items));
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Batched over a few milliseconds: one write for many requests (close and flush write the rest).
    setTimeout(() => {
      this.#scheduled = false;
      this.#chain = this.#chain.then(() => this.#flush());
    }, FLUSH_EVERY_MS).unref();
  }

  /** Resolves once every line written so far is on disk. */
  async flush(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#chain = this.#chain.then(() => this.#flush());
    await this.#chain;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.#file?.close();
    this.#file = undefined;
  }

  async #flush(batch?: T[]): Promise<void> {
    if (this.#failed) return;
    const items = batch ?? this.#queue;
    if (items.length === 0) return;
    if (!batch) this.#queue = [];
    try {
      const text = this.#options.format(items);
      if (!this.#file) await this.#start(false);
      else if (this.#bytes > 0 && this.#bytes + Buffer.byteLength(text) > this.#maxBytes)
        await this.#start(true);
      await this.#file!.write(text);
      this.#bytes += Buffer.byteLength(text);
    } catch (error) {
      this.#failed = true;
      this.#options.onError?.(error);
    }
  }

  /** Opens the file (after moving the full one aside) and writes the preamble. */
  async #start(rotate: boolean): Promise<void> {
    const { path } = this.#options;
    if (rotate) {
      await this.#file?.close();
      rmSync(`${path}.${this.#keep}`, { force: true });
      for (let n = this.#keep - 1; n >= 1; n--)
        try {
          renameSync(`${path}.${n}`, `${path}.${n + 1}`);
        } catch {
          // not there yet
        }
      if (this.#keep > 0) renameSync(path, `${path}.1`);
      else rmSync(path, { force: true });
    }
    this.#file = await open(path, "w");
    const preamble = this.#options
      .preamble()
      .map((l) => `${l}\n`)
      .join("");
    await this.#file.write(preamble);
    this.#bytes = 0;
  }
}
