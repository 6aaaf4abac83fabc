// An append-only journal file: one JSON record a line, appended synchronously, compacted by an atomic rewrite.
import * as nodeFs from "node:fs";
import { basename, dirname, join } from "node:path";

/** The synchronous file calls the journal makes; injectable so tests can fail any of them. */
export type JournalFs = Pick<
  typeof nodeFs,
  | "openSync"
  | "writeSync"
  | "fsyncSync"
  | "closeSync"
  | "renameSync"
  | "readFileSync"
  | "mkdirSync"
  | "unlinkSync"
  | "truncateSync"
>;

export interface JournalOptions {
  path: string;
  /**
   * Fsync after every append (and the directory after a compaction). Off by default: an append
   * is in the kernel when it returns, which survives the process being killed (SIGKILL, OOM) but
   * not a power cut or a kernel crash; on costs a disk flush per record.
   */
  fsync?: boolean;
  fs?: JournalFs;
}

/** One line of the file as read at open. */
export interface JournalLine {
  /** 1-based line number, for error messages. */
  line: number;
  text: string;
}

/**
 * A file of newline-terminated records. `append` returns once the record is written to the file
 * (a `write(2)` that completed survives the process being killed at any later instruction);
 * `rewrite` replaces the whole file atomically (temp file, fsync, rename) to compact it.
 *
 * @example
 * const journal = AppendJournal.open({ path: "data/bot.json.delivery.jsonl" });
 * for (const { text } of journal.lines) replay(JSON.parse(text));
 * journal.append(JSON.stringify({ t: "i", in: 42, n: 0 }));
 */
export class AppendJournal {
  readonly path: string;
  /** The complete lines found at open (a last line cut short by a power cut is left out). */
  readonly lines: JournalLine[];
  /** True when the file ended in a line cut short (only a power cut or full disk leaves one). */
  readonly tornTail: boolean;
  readonly #fs: JournalFs;
  readonly #fsync: boolean;
  #fd: number;
  #appended = 0;

  private constructor(path: string, fs: JournalFs, fsync: boolean, text: string | undefined) {
    this.path = path;
    this.#fs = fs;
    this.#fsync = fsync;
    const parts = text === undefined || text === "" ? [] : text.split("\n");
    // A file that ends in a newline splits into a last empty string; anything else is a torn write.
    const last = parts.pop();
    this.tornTail = last !== undefined && last !== "";
    this.lines = parts
      .map((t, i) => ({ line: i + 1, text: t }))
      .filter((l) => l.text.trim() !== "");
    // A torn tail would glue itself to the next record: cut the file back to its last whole line.
    if (this.tornTail) fs.truncateSync(path, Buffer.byteLength(text!) - Buffer.byteLength(last!));
    this.#fd = fs.openSync(path, "a", 0o600);
  }

  /** Opens (creating it and its directory when missing) and reads the journal at `path`. */
  static open(options: JournalOptions): AppendJournal {
    const fs = options.fs ?? nodeFs;
    fs.mkdirSync(dirname(options.path), { recursive: true });
    let text: string | undefined;
    try {
      text = fs.readFileSync(options.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    return new AppendJournal(options.path, fs, options.fsync ?? false, text);
  }

  /** Records appended since open or the last rewrite. */
  get appended(): number {
    return this.#appended;
  }

  /** Appends one record (no newline inside); throws when the write fails. */
  append(record: string): void {
    this.#write(`${record}\n`);
    this.#appended++;
  }

  /** Appends several records in one write, in order; throws when the write fails. */
  appendMany(records: readonly string[]): void {
    if (records.length === 0) return;
    this.#write(`${records.join("\n")}\n`);
    this.#appended += records.length;
  }

  /** Replaces the file with `records` atomically; later appends go to the new file. */
  rewrite(records: string[]): void {
    const temp = join(dirname(this.path), `${basename(this.path)}.compact.tmp`);
    const fd = this.#fs.openSync(temp, "w", 0o600);
    try {
      const text = records.length === 0 ? "" : `${records.join("\n")}\n`;
      this.#fs.writeSync(fd, text);
      this.#fs.fsyncSync(fd);
    } catch (error) {
      this.#fs.closeSync(fd);
      try {
        this.#fs.unlinkSync(temp);
      } catch {
        // Left behind; the next compaction overwrites it.
      }
      throw error;
    }
    this.#fs.closeSync(fd);
    this.#fs.renameSync(temp, this.path);
    this.#fs.closeSync(this.#fd);
    this.#fd = this.#fs.openSync(this.path, "a", 0o600);
    this.#appended = 0;
    if (this.#fsync) this.#syncDir();
  }

  close(): void {
    if (this.#fd < 0) return;
    this.#fs.closeSync(this.#fd);
    this.#fd = -1;
  }

  #write(text: string): void {
    if (this.#fd < 0) throw new Error(`${this.path} is closed`);
    writeWhole(this.#fs, this.#fd, text);
    if (this.#fsync) this.#fs.fsyncSync(this.#fd);
  }

  #syncDir(): void {
    try {
      const fd = this.#fs.openSync(dirname(this.path), "r");
      try {
        this.#fs.fsyncSync(fd);
      } finally {
        this.#fs.closeSync(fd);
      }
    } catch {
      // Not every platform can fsync a directory; the rename itself is atomic.
    }
  }
}

/**
 * Writes `text` to `fd` whole through `fs` (`bytes`: its UTF-8 length, when the caller has it).
 * The string goes to write(2) as it is (no Buffer made for it); only a short write, which a file
 * rarely gives, needs the bytes to write the rest.
 */
export function writeWhole(
  fs: Pick<JournalFs, "writeSync">,
  fd: number,
  text: string,
  bytes = Buffer.byteLength(text),
): void {
  const written = fs.writeSync(fd, text);
  if (written >= bytes) return;
  const buffer = Buffer.from(text, "utf8");
  for (let offset = written; offset < bytes;)
    offset += fs.writeSync(fd, buffer, offset, bytes - offset);
}
