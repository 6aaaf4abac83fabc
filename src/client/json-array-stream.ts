// Reads a JSON object body whose one top-level array is handed on element by element as the bytes arrive (GET /events).

/**
 * A top-level array of a response to read as a stream: each element is parsed as soon as its last
 * byte arrives, and the elements completed by each chunk of the body are passed to `take`. While
 * a promise `take` returned is pending, no more of the body is read, so the socket is not read
 * either (TCP backpressure holds the rest on the server). The body the call returns has an empty
 * array in that field.
 */
export interface ArrayStream {
  /** The top-level key of the array, e.g. `events`. */
  field: string;
  take(items: unknown[]): void | Promise<void>;
}

/** An error `take` threw: the caller's own, passed through as it is (it is not a network error). */
export class ArrayStreamConsumerError extends Error {
  override readonly name = "ArrayStreamConsumerError";
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Splits a JSON object, fed in chunks of UTF-8 bytes, into the elements of its top-level array
 * `field` (parsed one by one) and the rest of the object (its "envelope", with `[]` in place of
 * the array). It tracks only strings and nesting depth; parsing is left to `JSON.parse`, which
 * also rejects whatever is not JSON. Working on bytes is safe because every structural character
 * is ASCII and no byte of a multi-byte UTF-8 character is.
 *
 * @example
 * const split = new JsonArraySplitter("events");
 * for (const chunk of chunks) handle(split.push(chunk));
 * const envelope = split.end(); // { result: "success", events: [], ... }
 */
export class JsonArraySplitter {
  readonly #field: string;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Inside the streamed array (depth 2 and below). */
  #inArray = false;
  #streamed = false;
  /** The bytes of the envelope read so far, and of the current element (split across chunks). */
  readonly #envelope: Buffer[] = [];
  #element: Buffer[] = [];
  #elementOpen = false;
  /** The last string at depth 1 (a key, when a `[` follows it), and its bytes while it is open. */
  #lastKey = "";
  #key: Buffer[] | undefined;

  constructor(field: string) {
    this.#field = field;
  }

  /** Feeds the next chunk; returns the elements it completed, parsed, in order. */
  push(chunk: Buffer): unknown[] {
    const items: unknown[] = [];
    const n = chunk.length;
    /** Where the unsaved envelope bytes, the current element and the current key start in `chunk`. */
    let envelopeFrom = this.#inArray ? -1 : 0;
    let elementFrom = this.#elementOpen ? 0 : -1;
    let keyFrom = this.#key ? 0 : -1;
    for (let i = 0; i < n; i++) {
      const c = chunk[i]!;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === BACKSLASH) this.#escaped = true;
        else if (c === QUOTE) {
          this.#inString = false;
          if (keyFrom !== -1) {
            this.#key!.push(chunk.subarray(keyFrom, i));
            this.#lastKey = Buffer.concat(this.#key!).toString("utf8");
            this.#key = undefined;
            keyFrom = -1;
          }
        }
        continue;
      }
      if (this.#inArray && this.#depth === 2 && !this.#elementOpen && !isSpace(c)) {
        if (c === COMMA) continue;
        if (c !== CLOSE_ARRAY) {
          this.#elementOpen = true;
          elementFrom = i;
        }
      }
      switch (c) {
        case QUOTE:
          this.#inString = true;
          if (this.#depth === 1) {
            this.#key = [];
            keyFrom = i + 1;
          }
          break;
        case OPEN_ARRAY:
        case OPEN_OBJECT:
          this.#depth++;
          if (
            c === OPEN_ARRAY &&
            this.#depth === 2 &&
            !this.#streamed &&
            this.#lastKey === this.#field
          ) {
            this.#inArray = true;
            this.#streamed = true;
            this.#envelope.push(Buffer.from(chunk.subarray(envelopeFrom, i + 1)));
            envelopeFrom = -1;
          }
          break;
        case COMMA:
          if (this.#inArray && this.#depth === 2) {
            items.push(this.#finishElement(chunk, elementFrom, i));
            elementFrom = -1;
          }
          break;
        case CLOSE_ARRAY:
        case CLOSE_OBJECT:
          this.#depth--;
          if (this.#inArray && this.#depth === 1) {
            if (this.#elementOpen) items.push(this.#finishElement(chunk, elementFrom, i));
            elementFrom = -1;
            this.#inArray = false;
            envelopeFrom = i;
          }
          break;
      }
    }
    // Copies, so that no chunk outlives its turn through a view into it.
    if (envelopeFrom !== -1) this.#envelope.push(Buffer.from(chunk.subarray(envelopeFrom)));
    if (elementFrom !== -1) this.#element.push(Buffer.from(chunk.subarray(elementFrom)));
    if (keyFrom !== -1) this.#key!.push(Buffer.from(chunk.subarray(keyFrom)));
    return items;
  }

  /** Parses the element that ends just before `end` (its start may lie in earlier chunks). */
  #finishElement(chunk: Buffer, from: number, end: number): unknown {
    const tail = chunk.subarray(from === -1 ? 0 : from, end);
    const bytes = this.#element.length === 0 ? tail : Buffer.concat([...this.#element, tail]);
    this.#element = [];
    this.#elementOpen = false;
    return JSON.parse(bytes.toString("utf8"));
  }

  /** The envelope: the whole object with an empty array in place of the streamed one. */
  end(): unknown {
    if (this.#inArray || this.#inString || this.#depth !== 0)
      throw new SyntaxError("the JSON body ended early");
    return JSON.parse(Buffer.concat(this.#envelope).toString("utf8"));
  }
}

/**
 * Answers up to this size are parsed whole (`readWhole`): nearly every poll is far smaller, and
 * holding 64 KiB at once costs nothing.
 */
export const WHOLE_BODY_MAX = 64 * 1024;

/**
 * One body read with `stream`, for a caller that is handed the chunks (undici's dispatch handler)
 * as well as one that pulls them (`readArrayStream`): `push` returns a promise while `take` is
 * busy with what a chunk completed, and the caller reads no further until it settles. An answer
 * declared at most WHOLE_BODY_MAX long is parsed whole at the end instead: one `JSON.parse` (as
 * before streaming) is cheaper than splitting, which is only worth paying for a large poll.
 * `push` and `end` throw SyntaxError on a body that is not JSON, and ArrayStreamConsumerError
 * (with the cause) when `take` fails.
 */
export class ArrayStreamReader {
  readonly #stream: ArrayStream;
  readonly #split: JsonArraySplitter | undefined;
  readonly #chunks: Buffer[] = [];
  /** The body's text when it was parsed whole (not split), once `end` has read it. */
  text: string | undefined;

  /** `length` is the body's declared size, if any. */
  constructor(stream: ArrayStream, length?: number) {
    this.#stream = stream;
    if (length === undefined || length > WHOLE_BODY_MAX)
      this.#split = new JsonArraySplitter(stream.field);
  }

  push(chunk: Buffer): Promise<void> | undefined {
    if (!this.#split) {
      this.#chunks.push(chunk);
      return undefined;
    }
    const items = this.#split.push(chunk);
    return items.length > 0 ? take(this.#stream, items) : undefined;
  }

  /**
   * The body once every chunk is in: the envelope, or the small body with its array handed on; a
   * promise of it only while `take` is busy with that array (a poll the consumer took at once
   * costs no promise).
   */
  end(): unknown {
    if (this.#split) return this.#split.end();
    this.text = Buffer.concat(this.#chunks).toString("utf8");
    const parsed = JSON.parse(this.text) as unknown;
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return parsed;
    const items = (parsed as Record<string, unknown>)[this.#stream.field];
    if (!Array.isArray(items)) return parsed;
    (parsed as Record<string, unknown>)[this.#stream.field] = [];
    const taking = items.length > 0 ? take(this.#stream, items) : undefined;
    return taking ? taking.then(() => parsed) : parsed;
  }
}

/**
 * Reads a body with `stream` (see ArrayStreamReader), waiting for `take` before reading on.
 * `length` is the body's declared size, if any.
 */
export async function readArrayStream(
  body: AsyncIterable<Buffer>,
  stream: ArrayStream,
  length?: number,
): Promise<unknown> {
  const reader = new ArrayStreamReader(stream, length);
  for await (const chunk of body) await reader.push(chunk);
  return reader.end();
}

/** Hands items to the consumer: nothing to wait for when it takes them at once. */
function take(stream: ArrayStream, items: unknown[]): Promise<void> | undefined {
  const failed = (error: unknown) =>
    new ArrayStreamConsumerError("the array's consumer failed", { cause: error });
  let taken: void | Promise<void>;
  try {
    taken = stream.take(items);
  } catch (error) {
    throw failed(error);
  }
  return taken?.then(undefined, (error: unknown) => {
    throw failed(error);
  });
}
