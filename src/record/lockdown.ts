// Lockdown replay: the client's transport answered from a cassette, in order; a request it does not hold fails, named.
import type { HttpRequest, HttpResponse, RequestSender } from "../client/transport.js";
import { NetworkError } from "../client/errors.js";
import { describeRequest, eventCauses, type Cassette, type CassetteExchange } from "./cassette.js";
import { Sanitizer } from "./sanitize.js";

/** A request the cassette does not hold: what the bot sent that it did not send when recorded. */
export class CassetteMissError extends Error {
  override readonly name = "CassetteMissError";
  /** `METHOD /path fields`, as sanitized. */
  readonly request: string;
  constructor(request: string, detail: string) {
    super(`lockdown: the bot sent ${request}, which the cassette does not hold${detail}`);
    this.request = request;
  }
}

const LONG_POLL = "GET /events";

/** How long a poll waits for the requests its events came from before it is answered anyway. */
const DEFAULT_GRACE_MS = 3_000;

export interface LockdownOptions {
  /** How long an event batch waits for the requests that caused it (default 3000 ms). */
  graceMs?: number;
}

function fieldsOf(req: HttpRequest): Record<string, string> {
  const params =
    req.fields === undefined
      ? new URLSearchParams()
      : typeof req.fields === "string"
        ? new URLSearchParams(req.fields)
        : req.fields;
  const out: Record<string, string> = {};
  for (const [k, v] of params) out[k] = v;
  return out;
}

/** What identifies a request: method, path and fields (in any order). */
function keyOf(method: string, path: string, fields: Record<string, string>): string {
  const sorted = Object.keys(fields)
    .sort()
    .map((k) => [k, fields[k]]);
  return `${method} ${path} ${JSON.stringify(sorted)}`;
}

/**
 * Serves a cassette's answers: each request is matched on method, path and fields (after the
 * cassette's own sanitizing, so a replayed bot, which only ever saw aliases, sends what it sent
 * then), and gets the recorded answers to that request in their recorded order. Event batches
 * come back as recorded; once they are all served, the next poll waits until the bot gives up on
 * it (its timeout or its stop), as a quiet server would. Any other request fails with a
 * CassetteMissError naming it, and is listed in `misses`.
 */
export class LockdownReplayer implements RequestSender {
  readonly #byKey = new Map<string, CassetteExchange[]>();
  readonly #sanitizer: Sanitizer;
  readonly #polls: number;
  #polled = 0;
  readonly #pollWaiters: (() => void)[] = [];
  readonly #deps: Map<CassetteExchange, CassetteExchange[]>;
  readonly #served = new Set<CassetteExchange>();
  readonly #servedWaiters = new Set<() => void>();
  readonly #graceMs: number;
  /** Requests whose every recorded answer has been served. */
  readonly #exhausted = new Set<string>();
  /** Every request the cassette did not hold, in order (described). */
  readonly misses: CassetteMissError[] = [];
  /** Every request sent, in order (described), held or not. */
  readonly requests: string[] = [];

  constructor(cassette: Cassette, options: LockdownOptions = {}) {
    this.#deps = eventCauses(cassette);
    this.#graceMs = options.graceMs ?? DEFAULT_GRACE_MS;
    this.#sanitizer = new Sanitizer({
      enabled: cassette.header.sanitized,
      hashContent: cassette.header.contentHashed,
    });
    let polls = 0;
    for (const exchange of cassette.exchanges) {
      const key = keyOf(exchange.method, exchange.path, exchange.fields);
      let queue = this.#byKey.get(key);
      if (!queue) this.#byKey.set(key, (queue = []));
      queue.push(exchange);
      if (exchange.endpoint === LONG_POLL) polls++;
    }
    this.#polls = polls;
  }

  /** Recorded exchanges not served (yet): what the bot did not ask for this time. */
  unserved(): CassetteExchange[] {
    return [...this.#byKey.values()].flat().sort((a, b) => a.seq - b.seq);
  }

  /** Resolves once every recorded event batch has been handed to the bot. */
  eventsDelivered(): Promise<void> {
    if (this.#polled >= this.#polls) return Promise.resolve();
    return new Promise((resolve) => this.#pollWaiters.push(resolve));
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    const path = this.#sanitizer.enabled ? this.#sanitizer.text(req.path) : req.path;
    const fields = this.#sanitizer.value(fieldsOf(req)) as Record<string, string>;
    const described = describeRequest(req.method, path, fields);
    this.requests.push(described);
    const key = keyOf(req.method, path, fields);
    const queue = this.#byKey.get(key);
    const exchange = queue?.shift();
    if (queue?.length === 0) {
      this.#byKey.delete(key);
      this.#exhausted.add(key);
    }
    if (!exchange) {
      if (req.endpoint === LONG_POLL && this.#polled >= this.#polls) return this.#quiet(req);
      const same = [...this.#byKey.keys()].filter((k) => k.startsWith(`${req.method} ${path} `));
      const error = new CassetteMissError(
        described,
        this.#exhausted.has(key)
          ? ` again (every recorded answer to it was served)`
          : same.length > 0
            ? ` (it holds ${req.method} ${path} with other fields)`
            : "",
      );
      this.misses.push(error);
      throw error;
    }
    // A batch showing the bot's own reply waits until the bot has sent it again (`eventCauses`).
    const deps = this.#deps.get(exchange);
    if (deps) await this.#waitServed(deps, req.signal);
    this.#served.add(exchange);
    for (const wake of this.#servedWaiters) wake();
    if (exchange.endpoint === LONG_POLL) {
      this.#polled++;
      if (this.#polled >= this.#polls) for (const resolve of this.#pollWaiters.splice(0)) resolve();
    }
    if (exchange.error || exchange.status === undefined) {
      const message = exchange.error?.message ?? "no answer";
      const prefix = `${req.endpoint}: `;
      throw new NetworkError(message.startsWith(prefix) ? message.slice(prefix.length) : message, {
        endpoint: req.endpoint,
      });
    }
    let body = exchange.body ?? {};
    const stream = req.stream;
    if (stream && exchange.status === 200 && Array.isArray(body[stream.field])) {
      await stream.take(body[stream.field] as unknown[]);
      body = { ...body, [stream.field]: [] };
    }
    return {
      status: exchange.status,
      headers: { ...exchange.headers },
      body: structuredClone(body),
    };
  }

  /** Waits until every one of `deps` has been served, or the grace time is over, or `signal` aborts. */
  async #waitServed(deps: CassetteExchange[], signal: AbortSignal | undefined): Promise<void> {
    const deadline = Date.now() + this.#graceMs;
    while (!deps.every((d) => this.#served.has(d)) && Date.now() < deadline && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const wake = (): void => {
          clearTimeout(timer);
          this.#servedWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(1, deadline - Date.now()));
        this.#servedWaiters.add(wake);
      });
    }
  }

  /** A poll after the last recorded batch: no answer until the bot aborts it. */
  #quiet(req: HttpRequest): Promise<HttpResponse> {
    return new Promise((_, reject) => {
      const signal = req.signal;
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        reject(
          new NetworkError(`no answer within ${req.timeoutMs} ms`, { endpoint: req.endpoint }),
        );
      }, req.timeoutMs);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  async close(): Promise<void> {}
}
