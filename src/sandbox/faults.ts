// Fault injection: delays, error answers and dropped connections for chosen routes, for reliability tests.
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { parseBasicAuth } from "./auth.js";

/** One fault. Without `status`/`code` or `drop`, a rule only delays the request. */
export const faultRule = z.object({
  /** `METHOD /path` as the endpoint declares it (`GET /events`, `POST /messages`); omit for every route. */
  route: z.string().optional(),
  /** Waits this long before answering (or before the fault below). */
  delayMs: z.number().int().min(0).optional(),
  /** Answers with this HTTP status and an error body instead of running the route. */
  status: z.number().int().min(400).max(599).optional(),
  /** Error `code` of that body; default `BAD_REQUEST`. */
  code: z.string().optional(),
  msg: z.string().optional(),
  /** Extra keys of the error body, e.g. `{ "retry-after": 1 }`. */
  extra: z.record(z.string(), z.unknown()).optional(),
  /** Closes the connection without any answer. */
  drop: z.boolean().optional(),
  /**
   * Lets the route run first, so its effects stay (a message is stored), then drops the
   * connection or sends the error instead of its answer: the client cannot tell whether its
   * request took effect. Without it, a fault answers before the route runs and nothing happens.
   */
  after: z.boolean().optional(),
  /** Only requests authenticated (HTTP Basic) as this email; any requester when absent. */
  user: z.string().optional(),
  /** How many matching requests the rule applies to; unlimited when absent. */
  times: z.number().int().min(1).optional(),
  /** Applies to each matching request with this chance (0 to 1), e.g. 0.05 for one in twenty; always when absent. */
  probability: z.number().min(0).max(1).optional(),
});
export type FaultRule = z.input<typeof faultRule>;

interface ActiveRule {
  id: number;
  rule: z.output<typeof faultRule>;
  remaining: number;
}

/**
 * What `apply` decided: `true` when the request was answered (or dropped) already, `false` when
 * the route runs as usual, or a function that replaces the route's answer once it has run.
 */
export type FaultOutcome = boolean | ((res: ServerResponse) => void);

/** The email of a request's Basic credentials, if it has well-formed ones (the route refuses others). */
function requesterEmail(req: IncomingMessage): string | undefined {
  try {
    return parseBasicAuth(req.headers)?.email.toLowerCase();
  } catch {
    return undefined;
  }
}

export class FaultInjector {
  #rules: ActiveRule[] = [];
  #nextId = 1;
  readonly #random: () => number;
  /** Requests each rule has hit, by rule ID (for assertions). */
  readonly hits = new Map<number, number>();

  /** `random` decides `probability` rules (default Math.random); tests may pass a seeded one. */
  constructor(random: () => number = Math.random) {
    this.#random = random;
  }

  /** Adds a fault; returns its ID for `remove`. */
  add(rule: FaultRule): number {
    const parsed = faultRule.parse(rule);
    const id = this.#nextId++;
    this.#rules.push({ id, rule: parsed, remaining: parsed.times ?? Infinity });
    this.hits.set(id, 0);
    return id;
  }

  remove(id: number): boolean {
    const before = this.#rules.length;
    this.#rules = this.#rules.filter((r) => r.id !== id);
    return this.#rules.length < before;
  }

  clear(): void {
    this.#rules = [];
  }

  list(): (FaultRule & { id: number; remaining: number | null })[] {
    return this.#rules.map((r) => ({
      ...r.rule,
      id: r.id,
      remaining: Number.isFinite(r.remaining) ? r.remaining : null,
    }));
  }

  /**
   * Applies the first matching rule, before the route runs (see FaultOutcome). Answers at once,
   * without a promise, when no rule is set: the common case, on every request.
   */
  apply(
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: string,
  ): FaultOutcome | Promise<FaultOutcome> {
    return this.#rules.length === 0 ? false : this.#applyRules(req, res, endpoint);
  }

  async #applyRules(
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: string,
  ): Promise<FaultOutcome> {
    const requester = this.#rules.some((r) => r.rule.user !== undefined)
      ? requesterEmail(req)
      : undefined;
    const active = this.#rules.find(
      (r) =>
        r.remaining > 0 &&
        (r.rule.route === undefined || r.rule.route === endpoint) &&
        (r.rule.user === undefined || r.rule.user.toLowerCase() === requester) &&
        (r.rule.probability === undefined || this.#random() < r.rule.probability),
    );
    if (!active) return false;
    active.remaining--;
    this.hits.set(active.id, (this.hits.get(active.id) ?? 0) + 1);
    if (active.remaining <= 0) this.remove(active.id);
    const { rule } = active;
    if (rule.delayMs) await new Promise((resolve) => setTimeout(resolve, rule.delayMs));
    if (!rule.drop && rule.status === undefined && rule.code === undefined) return false;
    if (rule.after) return (after) => FaultInjector.#fail(after, rule);
    FaultInjector.#fail(res, rule);
    return true;
  }

  /** Drops the connection, or answers with the rule's error. */
  static #fail(res: ServerResponse, rule: z.output<typeof faultRule>): void {
    if (rule.drop) {
      res.socket?.destroy();
      return;
    }
    const status = rule.status ?? 400;
    const code = rule.code ?? "BAD_REQUEST";
    const body = JSON.stringify({
      result: "error",
      msg: rule.msg ?? `Injected fault: ${code}`,
      code,
      ...rule.extra,
    });
    const headers: Record<string, string | number> = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    };
    const retryAfter = rule.extra?.["retry-after"];
    if (typeof retryAfter === "number") headers["retry-after"] = Math.ceil(retryAfter);
    res.writeHead(status, headers);
    res.end(body);
  }
}
