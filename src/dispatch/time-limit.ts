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
  /** `performance.now()` when it started. */
  readonly startedAt: number;
  /** It ran past its limit and was aborted, but has not returned: its slot is free, its work is not. */
  overran: boolean;
  /** Counted towards quarantine already (the half-time mark). */
  counted: boolean;
  /** True while its handler waits in `ctx.ask` (its slot is free then). */
  readonly waiting: () => boolean;
}

/** A run as the limits keep it: with its context and how to end its race. */
interface Run extends LimitedRun {
  readonly ctx: MessageContext;
  readonly reject: (error: unknown) => void;
}

/**
 * How often running calls are checked against their limits: a limit fires at most this much late.
 * Short enough for the smallest limits worth setting, long enough to cost nothing.
 */
const SWEEP_MS = 50;

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
  readonly #hooks: TimeLimitHooks;
  /** Runs under a limit that have not returned (overrun ones included). */
  readonly #running = new Set<Run>();
  #overruns = 0;
  /** The sweep's interval while calls run (see `run`). */
  #sweep: NodeJS.Timeout | undefined;

  constructor(options: TimeLimitsOptions = {}) {
    this.#defaultMs = options.defaultMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
    this.#plugins = options.plugins ?? {};
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
    const now = performance.now();
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

  /**
   * Races `result` against `limitMs` (see the class). No timer per call: one sweep every
   * `SWEEP_MS` (while calls run, and once after) checks them all, since nearly every handler ends
   * long before its limit and two timers for each would be most of what a limit costs.
   */
  run(
    result: PromiseLike<unknown>,
    ctx: MessageContext,
    plugin: string,
    handler: string,
    limitMs: number,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const run: Run = {
        messageId: ctx.message.id,
        plugin,
        handler,
        limitMs,
        startedAt: performance.now(),
        overran: false,
        counted: false,
        waiting: () => ctx.waitingForAnswer,
        ctx,
        reject,
      };
      this.#running.add(run);
      if (this.#sweep === undefined) {
        this.#sweep = setInterval(this.#check, SWEEP_MS);
        this.#sweep.unref?.();
      }
      result.then(
        () => {
          if (!this.#end(run)) return;
          this.#hooks.succeeded?.(run.messageId);
          resolve();
        },
        (error: unknown) => {
          if (this.#end(run)) reject(error);
        },
      );
    });
  }

  /** The call returned: false when it had overrun already (its promise was rejected then). */
  #end(run: Run): boolean {
    this.#running.delete(run);
    return !run.overran;
  }

  /**
   * The sweep: the half-time mark and the limit of every call running. It stops itself once it
   * finds none running, rather than being stopped when the last call returns: a bot answering one
   * command at a time (200/s, say) would otherwise set and clear an interval per command, each
   * making and dropping Node's list of timers of that duration.
   */
  readonly #check = (): void => {
    if (this.#running.size === 0) {
      clearInterval(this.#sweep);
      this.#sweep = undefined;
      return;
    }
    const now = performance.now();
    for (const run of this.#running) {
      if (run.overran || run.waiting()) continue;
      const elapsed = now - run.startedAt;
      if (elapsed >= run.limitMs) this.#overrun(run);
      else if (!run.counted && elapsed >= run.limitMs / 2) {
        run.counted = true;
        this.#hooks.halfway?.(run);
      }
    }
  };

  #overrun(run: Run): void {
    run.overran = true;
    this.#overruns++;
    const error = new HandlerTimeoutError(run.plugin, run.handler, run.limitMs, run.messageId);
    error.counted = run.counted;
    run.ctx.cancel(error);
    this.#hooks.overran?.(run);
    run.reject(error);
  }
}
