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
 * Appends lines in batches: `write` only queues an item; a batch is formatted (`format`) as soon
 * as it is full (MAX_BATCH items) or a few milliseconds after its first item, and its bytes are
 * written in one write, after the writes before it. So a request never waits on the disk, and
 * sanitizing and JSON happen off its path. A batch's items are given up once it is formatted, and
 * only its bytes (off V8's heap) wait for the disk. Items held until an earlier write was done
 * (formatted in the write chain) outlived V8's young generation, which copied them at each
 * collection and then moved them to the old one (the recorder alone 5.7-5.9 -> 4.5-4.9 µs per
 * exchange in `bench/record.ts`; bench/README.md, "Machinery"). A crash loses what is queued: at
 * most the last few milliseconds.
 */
export class CassetteWriter<T> {
  readonly #options: WriterOptions<T>;
  readonly #maxBytes: number;
  readonly #keep: number;
  #queue: T[] = [];
  #file: FileHandle | undefined;
  /** Whether a file is open or being opened (by the chain). */
  #started = false;
  /** Bytes of the current file past its preamble, counting the batches still to be written. */
  #bytes = 0;
  #scheduled = false;
  #chain: Promise<void> = Promise.resolve();
  #failed = false;
  /** Closed: what is written later (an answer that arrives while the bot stops) is dropped. */
  #closed = false;

  constructor(options: WriterOptions<T>) {
    this.#options = options;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#keep = options.keep ?? DEFAULT_KEEP;
    mkdirSync(dirname(options.path), { recursive: true });
  }

  /** Queues an item, formatted with its batch. */
  write(item: T): void {
    if (this.#failed || this.#closed) return;
    this.#queue.push(item);
    if (this.#queue.length === MAX_BATCH) {
      this.#formatQueue();
      return;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    // Batched over a few milliseconds: one write for many requests (close and flush write the rest).
    setTimeout(() => {
      this.#scheduled = false;
      this.#formatQueue();
    }, FLUSH_EVERY_MS).unref();
  }

  /** Resolves once every line written so far is on disk. */
  async flush(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#formatQueue();
    await this.#chain;
  }

  async close(): Promise<void> {
    await this.flush();
    // A line written from here on would otherwise start the file again, emptying it.
    this.#closed = true;
    await this.#file?.close();
    this.#file = undefined;
  }

  /**
   * Formats the queued items and chains their write; a file is started (or rotated) here, in the
   * order of the batches, with the preamble as it stands once this batch is formatted.
   */
  #formatQueue(): void {
    if (this.#failed || this.#queue.length === 0) return;
    const items = this.#queue;
    this.#queue = [];
    let bytes: Buffer;
    try {
      bytes = Buffer.from(this.#options.format(items));
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (!this.#started || (this.#bytes > 0 && this.#bytes + bytes.length > this.#maxBytes)) {
      const rotate = this.#started;
      this.#started = true;
      this.#bytes = 0;
      const preamble = this.#options.preamble();
      this.#chained(() => this.#start(rotate, preamble));
    }
    this.#bytes += bytes.length;
    this.#chained(() => this.#file!.write(bytes));
  }

  /** Runs `step` after every step before it, unless one failed. */
  #chained(step: () => Promise<unknown>): void {
    this.#chain = this.#chain.then(async () => {
      if (this.#failed) return;
      try {
        await step();
      } catch (error) {
        this.#fail(error);
      }
    });
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#queue = [];
    this.#options.onError?.(error);
  }

  /** Opens the file (after moving the full one aside) and writes the preamble. */
  async #start(rotate: boolean, preamble: string[]): Promise<void> {
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
    await this.#file.write(preamble.map((l) => `${l}\n`).join(""));
  }
}
