// The recorder: wraps the client's transport and hands every request, answer and event batch to its thread, which writes the cassette.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import type { HttpRequest, HttpResponse, RequestSender } from "../client/transport.js";
import { ownPackage, runsBuilt } from "../own-files.js";
import { encodeExchange, SLOTS, type Wire } from "./exchange-wire.js";
import type {
  FromRecorderThread,
  RecorderThreadData,
  ToRecorderThread,
} from "./recorder-thread.js";
import type { SanitizeOptions } from "./sanitize.js";

export interface RecorderOptions extends SanitizeOptions {
  /** The cassette file (JSON lines); rotated files get `.1`, `.2`, ... */
  path: string;
  /** The server's site, kept in the header unless sanitized. */
  site: string;
  /** Rotate past this many bytes (default 64 MiB). */
  maxBytes?: number;
  /** Rotated files kept (default 3). */
  keep?: number;
  /** topicbot's version, for the header. */
  version?: string;
  /** Writing failed (disk full, ...): the recording stops there, the bot goes on. */
  onError?: (error: unknown) => void;
}

/** How long an exchange waits to be sent to the recorder's thread with the ones after it. */
const SEND_EVERY_MS = 50;
/** Exchanges sent to the thread at once at most (then at once, without waiting). */
const MAX_BATCH = 256;
/**
 * Exchanges sent to the thread and not written yet, at most: past this the cassette's disk does
 * not keep up (a hung network mount, a full queue of slow writes) and the recording stops, rather
 * than the batches waiting for it growing the bot's memory without bound. About a minute of a
 * busy bot's traffic (some tens of MiB of text).
 */
export const MAX_UNWRITTEN = 64 * MAX_BATCH;
/** How long a flush or the close waits for the thread to say all is written. */
const ANSWER_WAIT_MS = 5_000;

/** The recorder's thread: the built file, or from the sources (tests, tsx) through tsx (`recorder-thread.dev.mjs`). */
function startThread(data: RecorderThreadData): Worker {
  if (runsBuilt())
    return new Worker(join(ownPackage().root, "dist/bundle/recorder-thread.js"), {
      workerData: data,
    });
  return new Worker(join(ownPackage().root, "src/record/recorder-thread.dev.mjs"), {
    workerData: data,
  });
}

/**
 * Records a bot's traffic. `wrap` is what `ClientOptions.wrapTransport` takes: each request goes
 * on to the real transport untouched. Once answered, the exchange is kept as its text (the
 * answer's body as the server sent it, the request's fields as sent) in a few slots of an array
 * (`exchange-wire.ts`) and, with the others of the last 50 ms (or 256 of them), sent to the
 * recorder's own thread, which parses, sanitizes and writes them (`recorder-thread.ts`). So what
 * the bot's thread spends on a recording is those slots per request and one message per batch,
 * and nothing of the recording waits on its event loop or delays a reply. A crash loses what is
 * not written yet: at most the last 50 ms.
 */
export class Recorder {
  readonly #thread: Worker;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #started = performance.now();
  #seq = 0;
  /** Exchanges not sent to the thread yet (`exchange-wire.ts`). */
  #queue: Wire = [];
  #scheduled = false;
  #stopped = false;
  #failed = false;
  /** Flushes and the close waiting for the thread's answer, by their ID. */
  readonly #waiting = new Map<number, () => void>();
  #nextId = 0;
  #closing: Promise<void> | undefined;
  /** Exchanges sent to the thread that it has not said are written. */
  #unwritten = 0;

  constructor(options: RecorderOptions) {
    const { path, site, maxBytes, keep, version, onError, ...sanitize } = options;
    this.#onError = onError;
    // A cassette folder that cannot be made stops the start, as a missing storage folder does.
    mkdirSync(dirname(path), { recursive: true });
    this.#thread = startThread({ lines: { ...sanitize, site, version }, path, maxBytes, keep });
    // The thread never keeps the bot's process alive; a flush or close holds it while it waits.
    this.#thread.unref();
    this.#thread.on("message", (message: FromRecorderThread) => {
      if (message.type === "written") this.#unwritten -= message.exchanges;
      else if (message.type === "done") {
        this.#waiting.get(message.id)?.();
        this.#waiting.delete(message.id);
      } else this.#fail(Object.assign(new Error(message.message), { code: message.code }));
    });
    this.#thread.on("error", (error) => this.#fail(error));
    this.#thread.on("exit", () => {
      if (!this.#stopped && this.#closing === undefined)
        this.#fail(new Error("the recorder's thread stopped"));
      for (const resolve of this.#waiting.values()) resolve();
      this.#waiting.clear();
    });
  }

  /** Wraps a transport: `createClient({ ..., wrapTransport: (t) => recorder.wrap(t) })`. */
  wrap(inner: RequestSender): RequestSender {
    return {
      send: (req) => this.#send(inner, req),
      close: async () => {
        await inner.close();
        await this.close();
      },
    };
  }

  async #send(inner: RequestSender, req: HttpRequest): Promise<HttpResponse> {
    const seq = ++this.#seq;
    const started = performance.now();
    let events: unknown[] | undefined;
    let sent = req;
    const stream = req.stream;
    if (stream) {
      // A large poll hands its events on one by one and keeps none of them in its body.
      const collected: unknown[] = [];
      events = collected;
      sent = {
        ...req,
        stream: {
          field: stream.field,
          take(items) {
            for (const item of items) collected.push(item);
            return stream.take(items);
          },
        },
      };
    }
    let res: HttpResponse;
    try {
      res = await inner.send(sent);
    } catch (error) {
      this.#record(req, seq, started, undefined, events, error);
      throw error;
    }
    this.#record(req, seq, started, res, events, undefined);
    return res;
  }

  /** Queues the exchange for the thread: its text, nothing parsed written out again but a large poll's events. */
  #record(
    req: HttpRequest,
    seq: number,
    started: number,
    res: HttpResponse | undefined,
    events: unknown[] | undefined,
    error: unknown,
  ): void {
    if (this.#failed || this.#stopped) return;
    encodeExchange(
      this.#queue,
      seq,
      Math.round(started - this.#started),
      Math.round((performance.now() - started) * 10) / 10,
      req,
      res,
      res && (res.text ?? this.#bodyText(req, res, events)),
      res ? undefined : error instanceof Error ? error.message : String(error),
    );
    if (this.#queue.length >= MAX_BATCH * SLOTS) this.#sendQueue();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setTimeout(() => {
        this.#scheduled = false;
        this.#sendQueue();
      }, SEND_EVERY_MS).unref();
    }
  }

  /** The body of an answer without its text (a large poll's, or a wrapper's made-up one), written out. */
  #bodyText(req: HttpRequest, res: HttpResponse, events: unknown[] | undefined): string {
    let body = res.body;
    if (events && req.stream && Array.isArray(body[req.stream.field]))
      body = { ...body, [req.stream.field]: events };
    return JSON.stringify(body);
  }

  #sendQueue(): void {
    if (this.#queue.length === 0 || this.#failed) return;
    const exchanges = this.#queue;
    this.#queue = [];
    const count = exchanges.length / SLOTS;
    if (this.#unwritten + count > MAX_UNWRITTEN) {
      this.#fail(
        new Error(
          `the cassette's disk did not keep up: ${this.#unwritten} exchanges sent to the recorder's thread were still not written`,
        ),
      );
      return;
    }
    this.#unwritten += count;
    this.#post({ type: "exchanges", exchanges });
  }

  #post(message: ToRecorderThread): void {
    try {
      this.#thread.postMessage(message);
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Exchanges handed to the recorder's thread and not written yet (at most MAX_UNWRITTEN). */
  get unwritten(): number {
    return this.#unwritten;
  }

  /** Sends what waits and resolves once the thread has written everything recorded so far. */
  flush(): Promise<void> {
    return this.#ask("flush");
  }

  /** Writes what is recorded and stops the thread; exchanges answered later are not recorded. */
  close(): Promise<void> {
    this.#closing ??= this.#ask("close").then(() => {
      this.#stopped = true;
      // Not waited for: the file is closed once the thread answered, and a thread stuck in a write
      // to a disk that hangs (the close gave up on it) would not end.
      void this.#thread.terminate();
    });
    return this.#closing;
  }

  /**
   * Asks the thread to flush or close and waits for its answer: at most ANSWER_WAIT_MS, so that a
   * disk that hangs cannot hang the bot's stop (the recording then stops, saying why).
   */
  #ask(type: "flush" | "close"): Promise<void> {
    if (this.#failed || this.#stopped) return Promise.resolve();
    this.#sendQueue();
    if (this.#failed) return Promise.resolve();
    const id = ++this.#nextId;
    this.#thread.ref();
    let timer: NodeJS.Timeout | undefined;
    return new Promise<void>((resolve) => {
      this.#waiting.set(id, resolve);
      this.#post({ type, id });
      timer = setTimeout(
        () =>
          this.#fail(
            new Error(
              `the cassette's disk did not answer within ${ANSWER_WAIT_MS / 1000} s: ${this.#unwritten} exchanges not written are lost`,
            ),
          ),
        ANSWER_WAIT_MS,
      );
    }).finally(() => {
      clearTimeout(timer);
      if (this.#waiting.size === 0) this.#thread.unref();
    });
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#queue = [];
    for (const resolve of this.#waiting.values()) resolve();
    this.#waiting.clear();
    this.#onError?.(error);
    void this.#thread.terminate();
  }
}
