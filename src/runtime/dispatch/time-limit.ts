// Handler time limits: the limit of each handler (its own, its plugin's, the bot's), enforced through ctx.signal; the handlers that overran.
import type { MessageContext } from "../context/context.js";

/** Default time limit of every handler: longer than a reply's send deadline (5 minutes). */
export const DEFAULT_HANDLER_TIMEOUT_MS = 10 * 60_000;

/** A time limit: milliseconds, or false for none. */
export type TimeLimit = number | false;

/** A handler ran past its time limit: its `ctx.signal` is aborted with this, and its user told. */
export class HandlerTimeoutError extends Error {
  readonly plugin: string;
  /** `command <name>`, `listener`, ... */
  readonly handler: string;
  readonly limitMs: number;
  readonly messageId: number;
  /** The overrun was counted towards quarantine already (the half-time mark). */
  counted = false;

  constructor(plugin: string, handler: string, limitMs: number, messageId: number) {
    super(
      `plugin "${plugin}": ${handler} ran past its time limit of ${formatMs(limitMs)} on message ${messageId}; ` +
        "it was aborted (ctx.signal) and its concurrency slot freed",
    );
    this.name = "HandlerTimeoutError";
    this.plugin = plugin;
    this.handler = handler;
    this.limitMs = limitMs;
    this.messageId = messageId;
  }
}

/** `1500` as `1.5 s`, `120000` as `2 min`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6000) / 10} min`;
}

/** One handler run under a limit, while it runs (and after it overran, until it returns). */
export interface LimitedRun {
  readonly messageId: number;
  readonly plugin: string;
  readonly handler: string;
  readonly limitMs: number;
  /** `now()` when it started. */
  readonly startedAt: number;
  /** It ran past its limit and was aborted, but has not returned: its slot is free, its work is not. */
  overran: boolean;
  /** Counted towards quarantine already (the half-time mark). */
  counted: boolean;
  /** True while its handler waits in `ctx.ask` (its slot is free then). */
  readonly waiting: () => boolean;
}

/** What the limits tell the rest of the bot (quarantine counting, metrics). */
export interface TimeLimitHooks {
  /** A run reached half its limit: it may be a hung handler; count it now (a kill may follow). */
  halfway?(run: LimitedRun): void;
  /** A run overran and was aborted. */
  overran?(run: LimitedRun): void;
  /** A run ended without throwing. */
  succeeded?(messageId: number): void;
}

export interface TimeLimitsOptions {
  /** Every handler's limit unless its plugin or itself says otherwise. Default 10 minutes. */
  defaultMs?: TimeLimit;
  /** Limits by plugin name. */
  plugins?: Readonly<Record<string, TimeLimit>>;
  now?: () => number;
  hooks?: TimeLimitHooks;
}

/**
 * Enforces handler time limits. `run` races a handler's promise against its limit: when the limit
 * comes first, `ctx.signal` aborts with a `HandlerTimeoutError`, and the returned promise rejects
 * with it, so the router reports it and the conversation's slot is freed, whether or not the
 * handler heeds the signal. A handler waiting in `ctx.ask` has released its slot: the limit stops.
 *
 * @example
 * const limits = new TimeLimits({ defaultMs: 30_000, plugins: { github: 5_000 } });
 * await limits.run(handler(ctx), ctx, "github", "command pr", limits.limitFor("github", undefined));
 */
export class TimeLimits {
  readonly #defaultMs: TimeLimit;
  readonly #plugins: Readonly<Record<string, TimeLimit>>;
  readonly #now: () => number;
  readonly #hooks: TimeLimitHooks;
  /** Runs under a limit that have not returned (overrun ones included). */
  readonly #running = new Set<LimitedRun>();
  #overruns = 0;

  constructor(options: TimeLimitsOptions = {}) {
    this.#defaultMs = options.defaultMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
    this.#plugins = options.plugins ?? {};
    this.#now = options.now ?? Date.now;
    this.#hooks = options.hooks ?? {};
  }

  /** The limit of a handler: its own, else its plugin's, else the default; undefined for none. */
  limitFor(plugin: string, own: TimeLimit | undefined): number | undefined {
    const limit = own ?? this.#plugins[plugin] ?? this.#defaultMs;
    return limit === false || limit <= 0 ? undefined : limit;
  }

  /** Handlers that overran and were aborted since start. */
  get overruns(): number {
    return this.#overruns;
  }

  /** Runs that overran their limit and still have not returned (they ignore `ctx.signal`). */
  overrunning(): LimitedRun[] {
    return [...this.#running].filter((r) => r.overran);
  }

  /** Runs holding their slot past half their limit (about to be aborted, or hung). */
  slow(): LimitedRun[] {
    const now = this.#now();
    return [...this.#running].filter(
      (r) => !r.overran && !r.waiting() && now - r.startedAt >= r.limitMs / 2,
    );
  }

  /** Runs that have not returned, for the stop (counted towards quarantine when still running). */
  running(): LimitedRun[] {
    return [...this.#running];
  }

  /**
   * `result` under the limit of `plugin`'s handler (`own` its own choice): raced by `run`, or
   * itself when no limit applies. `kind` names a handler that is not a command in logs.
   */
  apply(
    result: PromiseLike<unknown>,
    ctx: MessageContext,
    plugin: string,
    kind: string,
    own: TimeLimit | undefined,
  ): PromiseLike<unknown> {
    const limit = this.limitFor(plugin, own);
    if (limit === undefined) return result;
    const handler = ctx.command ? `command ${ctx.command.name}` : kind;
    return this.run(result, ctx, plugin, handler, limit);
  }

  /** Races `result` against `limitMs` (see the class). */
  run(
    result: PromiseLike<unknown>,
    ctx: MessageContext,
    plugin: string,
    handler: string,
    limitMs: number,
  ): Promise<void> {
    const run: LimitedRun = {
      messageId: ctx.message.id,
      plugin,
      handler,
      limitMs,
      startedAt: this.#now(),
      overran: false,
      counted: false,
      waiting: () => ctx.waitingForAnswer,
    };
    this.#running.add(run);
    const hooks = this.#hooks;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const half = setTimeout(() => {
        if (settled || ctx.waitingForAnswer) return;
        run.counted = true;
        hooks.halfway?.(run);
      }, limitMs / 2);
      const full = setTimeout(() => {
        if (settled || ctx.waitingForAnswer) return;
        settled = true;
        run.overran = true;
        this.#overruns++;
        const error = new HandlerTimeoutError(plugin, handler, limitMs, run.messageId);
        error.counted = run.counted;
        ctx.cancel(error);
        hooks.overran?.(run);
        reject(error);
      }, limitMs);
      // Not kept alive by a limit: a bot that stops does not wait for it.
      half.unref?.();
      full.unref?.();
      const done = (threw: boolean, error?: unknown): void => {
        this.#running.delete(run);
        clearTimeout(half);
        clearTimeout(full);
        if (settled) return;
        settled = true;
        if (threw) return reject(error);
        hooks.succeeded?.(run.messageId);
        resolve();
      };
      result.then(
        () => done(false),
        (error: unknown) => done(true, error),
      );
    });
  }
}
