// Writes cassette lines to a file, a batch at a time, bounded in size and rotated (cassette.jsonl, .1, .2, ...).
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { writeWhole } from "../state/journal.js";

/** The file calls `writeWhole` makes. */
const files = { writeSync };

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

/**
 * Appends batches of lines: each batch is formatted (`format`) and written in one synchronous
 * write. It runs on the recorder's own thread (`recorder-thread.ts`), where waiting for the disk
 * holds up only the recording, never the bot; a synchronous write there is simpler and cheaper
 * than handing each batch to libuv's pool and waiting for it. The first batch opens the file, and
 * a batch that would take it past `maxBytes` moves it aside first; every file starts with the
 * preamble as it stands then. The first failure (a full disk, a format that throws) stops the
 * writer and is told once; a batch written after `close` is dropped.
 */
export class CassetteWriter<T> {
  readonly #options: WriterOptions<T>;
  readonly #maxBytes: number;
  readonly #keep: number;
  #fd = -1;
  /** Bytes of the current file past its preamble. */
  #bytes = 0;
  #failed = false;
  #closed = false;

  constructor(options: WriterOptions<T>) {
    this.#options = options;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#keep = options.keep ?? DEFAULT_KEEP;
    mkdirSync(dirname(options.path), { recursive: true });
  }

  /** Formats `items` as one batch and appends it. */
  write(items: T[]): void {
    if (this.#failed || this.#closed || items.length === 0) return;
    try {
      const text = this.#options.format(items);
      const bytes = Buffer.byteLength(text);
      if (this.#fd === -1) this.#start(false);
      else if (this.#bytes > 0 && this.#bytes + bytes > this.#maxBytes) this.#start(true);
      writeWhole(files, this.#fd, text, bytes);
      this.#bytes += bytes;
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Closes the file; later batches are dropped. */
  close(): void {
    this.#closed = true;
    if (this.#fd === -1) return;
    try {
      closeSync(this.#fd);
    } catch (error) {
      this.#fail(error);
    }
    this.#fd = -1;
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#options.onError?.(error);
  }

  /** Opens the file (after moving the full one aside) and writes the preamble. */
  #start(rotate: boolean): void {
    const { path } = this.#options;
    if (rotate) {
      closeSync(this.#fd);
      this.#fd = -1;
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
    this.#fd = openSync(path, "w", 0o600);
    this.#bytes = 0;
    const preamble = this.#options
      .preamble()
      .map((l) => `${l}\n`)
      .join("");
    writeWhole(files, this.#fd, preamble);
  }
}
