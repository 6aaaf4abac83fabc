// The router: commands found by name (one map lookup of the first word), listeners by their filters (the one primitive `hear`, `followed` and `filter` share); commands first, then listeners, then built-ins.
import type { MessageContext } from "../context/context.js";
import type { Middleware } from "./compose.js";
import { PluginError, type HandlerKind, type HandlerOrigin } from "./plugin-error.js";
import {
  compileSpec,
  subcommandInfos,
  usageLine,
  type CommandInfo,
  type CommandSpec,
  type CompiledSpec,
  type InvocationOf,
} from "../commands/command.js";
import type { ArgsShape } from "../commands/types.js";
import type { Overlap } from "../model/overlap.js";
import { resolveOverlap } from "./overlap.js";
import { OverlapLanes, OverlapRoom } from "./overlap-lanes.js";
import { isSpace } from "../commands/parse.js";
import type { TimeLimit, TimeLimits } from "./time-limit.js";

export type Handler<C extends MessageContext = MessageContext> = (ctx: C) => unknown;

/** A predicate that may also narrow the context type. */
export type Filter<C extends MessageContext> =
  ((ctx: MessageContext) => ctx is C) | ((ctx: MessageContext) => boolean);

/** No arguments or options declared. */
export type NoArgs = Record<never, never>;

/**
 * The context of a command handler: `ctx.command.args` and `options` typed exactly from the spec
 * (the loose `command` of MessageContext is left out, so a misspelt `args.nope` does not compile).
 */
export type CommandContext<A extends ArgsShape = NoArgs, O extends ArgsShape = NoArgs> = Omit<
  MessageContext,
  "command"
> & { command: InvocationOf<A, O> };

/** A command as the router keeps it. */
export interface RegisteredCommand {
  info: CommandInfo;
  spec: CommandSpec;
  compiled: CompiledSpec;
}

/**
 * Runs before a command's handler: rate limits, roles, argument resolution. Returns false when
 * the command must not run (the guard has answered the sender itself).
 */
export type CommandGuard = (
  ctx: CommandContext<ArgsShape, ArgsShape>,
  command: RegisteredCommand,
) => boolean | Promise<boolean>;

/** Options of a listener (`hear`, `filter`). */
export interface ListenerOptions {
  /**
   * What the sender is told when the handler throws: the text to reply, `true` for the bot's
   * `errorReply`, `false` for nothing. Default: the bot's `errorReply`, except for an action the
   * server refused (an `ApiError`), which is only logged.
   */
  errorReply?: string | boolean;
  /**
   * Whether the listener runs before the built-in `help` (which it then shadows when it matches
   * `help`). Default true; false lets `help` answer first.
   */
  shadowsHelp?: boolean;
  /**
   * What happens to messages that reach this handler in a conversation while it still runs there:
   * `queue` (default: each in turn), `latest`, `burst`, `interrupt`, `concurrent`, or an object
   * with the mode and its limits (see docs/agents.md). Default: the plugin's `overlap`.
   */
  overlap?: Overlap;
  /** Longest the handler may run, in ms, or `false` (see `CommandSpec.timeoutMs`). */
  timeoutMs?: TimeLimit;
}

/** What #add takes beyond ListenerOptions (commands: the guard and the bare handler, kept apart). */
interface EntryOptions extends ListenerOptions {
  /** Names the handler in errors about its options. */
  what: string;
  /** Runs before the handler; false when it must not run (a command's guard). */
  guard?: (ctx: MessageContext) => boolean | Promise<boolean>;
  /** The handler without the guard, for the overlap path (which runs the guard at admission). */
  bare?: Handler;
}

/** Told after each handler ran (debug logging): which plugin's handler, of which kind, how long. */
export type HandledReporter = (
  ctx: MessageContext,
  handler: { plugin: string; kind: HandlerKind; ms: number },
) => void;

interface Entry {
  plugin: string;
  kind: HandlerKind;
  /** Whether a listener takes the message (commands are found by name instead). */
  filter: (ctx: MessageContext) => boolean;
  handler: Handler;
  errorReply: string | boolean | undefined;
  /** A command's canonical name: the middleware finds commands by name, without asking `filter`. */
  command: string | undefined;
  /** Set when the handler has an overlap strategy other than `queue`. */
  overlap?: OverlapLanes;
  guard?: (ctx: MessageContext) => boolean | Promise<boolean>;
  bare?: Handler;
  timeoutMs?: TimeLimit;
}

/**
 * Told of a handler's error that no middleware can catch: one thrown by a call of an overlap
 * strategy, which runs after the router returned (see `Router.middleware`).
 */
export type HandlerErrorReporter = (error: PluginError) => void | Promise<void>;

/**
 * The first word of the addressed text and what follows it, both trimmed (as
 * `/^(\S+)(?:\s+([\s\S]*))?$/` on the trimmed text would split it). Scans characters instead:
 * it runs for every addressed message.
 */
export function splitCommandWord(text: string): { word: string; rest: string } | undefined {
  const word = commandWordAt(text);
  return word && { word: text.slice(word.start, word.end), rest: word.rest };
}

/** Where the first word of the addressed text lies, and what follows it (see `splitCommandWord`). */
interface CommandWord {
  /** `text.slice(start, end)` is the word; it is not sliced unless a name lookup needs it. */
  start: number;
  end: number;
  rest: string;
}

/** Where the first word lies: `splitCommandWord` without slicing the word (see `CommandNames`). */
function commandWordAt(text: string): CommandWord | undefined {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (start === end) return undefined;
  let wordEnd = start;
  while (wordEnd < end && !isSpace(text.charCodeAt(wordEnd))) wordEnd++;
  let restStart = wordEnd;
  while (restStart < end && isSpace(text.charCodeAt(restStart))) restStart++;
  return { start, end: wordEnd, rest: text.slice(restStart, end) };
}

/** The commands of one tier by lower-cased name and alias. */
class CommandNames {
  readonly byName = new Map<string, Entry>();

  set(name: string, entry: Entry): void {
    this.byName.set(name, entry);
  }

  get size(): number {
    return this.byName.size;
  }

  /** The command the word at `word` of `text` names, in any case. */
  at(text: string, word: CommandWord): Entry | undefined {
    return this.byName.get(text.slice(word.start, word.end).toLowerCase());
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | undefined)?.then === "function";

/** The plugin name of the framework's own commands (`help`). */
export const BUILTIN = "builtin";

function firstMatch(entries: readonly Entry[], ctx: MessageContext): Entry | undefined {
  for (const entry of entries) if (entry.filter(ctx)) return entry;
  return undefined;
}

/**
 * The command (of one tier) named by the first word of the addressed text, with `ctx.command`
 * set: one map lookup however many commands there are, where asking each command's filter
 * would split the text once per command.
 */
function commandMatch(
  names: CommandNames,
  ctx: MessageContext,
  word: CommandWord | undefined,
): Entry | undefined {
  if (word === undefined || names.size === 0) return undefined;
  const entry = names.at(ctx.text, word);
  if (entry === undefined) return undefined;
  ctx.command = { name: entry.command!, args: {}, options: {}, text: word.rest, raw: ctx.text };
  return entry;
}

/**
 * The routing order, first match wins: plugins' commands (in registration order), then the
 * handlers of plugins following the conversation (`bot.followed`), then listeners (`hear`,
 * `filter`, in registration order), then built-in commands (`help`); a message nothing
 * matched goes on to the next middleware (the unknown-command reply). A listener registered with
 * `shadowsHelp: false` runs after the built-ins instead.
 */
export class Router {
  /** One list per tier, in the order they are tried. */
  readonly #tiers: {
    command: Entry[];
    followed: Entry[];
    listener: Entry[];
    builtin: Entry[];
    late: Entry[];
  } = {
    command: [],
    followed: [],
    listener: [],
    builtin: [],
    late: [],
  };
  readonly #commands = new Map<string, RegisteredCommand>();
  /** The command and builtin tiers by lower-cased name and alias (names are unique across both). */
  readonly #byName = { command: new CommandNames(), builtin: new CommandNames() };
  readonly #guard: CommandGuard | undefined;
  readonly #overlapDefaults = new Map<string, Overlap>();
  /** What the handlers with an overlap strategy share. */
  readonly overlap: OverlapRoom;

  constructor(options: { guard?: CommandGuard; overlap?: OverlapRoom } = {}) {
    this.#guard = options.guard;
    this.overlap = options.overlap ?? new OverlapRoom();
  }

  /** The overlap strategy of `plugin`'s handlers that do not choose their own (`definePlugin({ overlap })`). */
  pluginOverlap(plugin: string, overlap: Overlap | undefined): void {
    if (overlap === undefined) this.#overlapDefaults.delete(plugin);
    else {
      resolveOverlap(overlap, `plugin "${plugin}"`);
      this.#overlapDefaults.set(plugin, overlap);
    }
  }

  /** Runs `handler` for messages `filter` accepts; the one primitive every verb is built on. */
  filter<C extends MessageContext>(
    plugin: string,
    filter: Filter<C>,
    handler: Handler<C>,
    options: ListenerOptions = {},
  ): void {
    this.#add("listener", plugin, filter, handler, { what: "filter listener", ...options });
  }

  #add<C extends MessageContext>(
    kind: HandlerKind,
    plugin: string,
    filter: Filter<C>,
    handler: Handler<C>,
    options: EntryOptions,
    command?: { name: string; names: readonly string[] },
  ): void {
    const overlap = options.overlap ?? this.#overlapDefaults.get(plugin);
    const strategy =
      overlap === undefined
        ? undefined
        : resolveOverlap(overlap, `plugin "${plugin}": ${options.what}`);
    const tier =
      kind === "listener" && options.shadowsHelp === false
        ? "late"
        : kind === "followed"
          ? "followed"
          : kind;
    const entry: Entry = {
      plugin,
      kind,
      filter,
      handler: handler as Handler,
      errorReply: options.errorReply,
      command: command?.name,
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      ...(strategy !== undefined &&
        strategy.mode !== "queue" && {
          overlap: new OverlapLanes(strategy, this.overlap),
          guard: options.guard,
          bare: options.bare,
        }),
    };
    this.#tiers[tier].push(entry);
    if (command && (tier === "command" || tier === "builtin"))
      for (const n of command.names) this.#byName[tier].set(n, entry);
  }

  /** A command: the first word of the addressed text is its name or an alias. */
  command<A extends ArgsShape = NoArgs, O extends ArgsShape = NoArgs>(
    plugin: string,
    name: string,
    spec: CommandSpec<A, O>,
    handler: Handler<CommandContext<A, O>>,
  ): void {
    if (/\s/.test(name) || name === "") throw new Error(`command name "${name}" must be one word`);
    const names = [name, ...(spec.aliases ?? [])].map((n) => n.toLowerCase());
    for (const n of names) {
      const existing = this.#commands.get(n);
      if (existing)
        throw new Error(
          `command "${n}" of plugin "${plugin}" is already defined by plugin "${existing.info.plugin}"`,
        );
    }
    const compiled = compileSpec(name, spec as CommandSpec);
    const info: CommandInfo = {
      name,
      plugin,
      usage: usageLine(name, compiled),
      ...(spec.description !== undefined && { description: spec.description }),
      ...(spec.aliases?.length && { aliases: spec.aliases }),
      ...(spec.examples?.length && { examples: spec.examples }),
      ...(spec.roles?.length && { roles: spec.roles }),
      ...(compiled.subcommands && { subcommands: subcommandInfos(compiled, plugin) }),
    };
    const registered: RegisteredCommand = { info, spec: spec as CommandSpec, compiled };
    for (const n of names) this.#commands.set(n, registered);
    const guard = this.#guard;
    this.#add(
      plugin === BUILTIN ? "builtin" : "command",
      plugin,
      // Never asked: the middleware finds commands by name (`#byName`), not by filter.
      () => false,
      (ctx: CommandContext<A, O>) => {
        // The guard answers synchronously when it has nothing to wait for (most commands).
        const allowed = guard
          ? guard(ctx as CommandContext<ArgsShape, ArgsShape>, registered)
          : true;
        if (allowed === true) return handler(ctx);
        if (allowed === false) return undefined;
        return allowed.then((ok) => (ok ? handler(ctx) : undefined));
      },
      {
        what: `command "${name}"`,
        ...(spec.overlap !== undefined && { overlap: spec.overlap }),
        ...(spec.timeoutMs !== undefined && { timeoutMs: spec.timeoutMs }),
        ...(guard && {
          guard: (ctx: MessageContext) =>
            guard(ctx as CommandContext<ArgsShape, ArgsShape>, registered),
        }),
        bare: handler as Handler,
      },
      { name, names },
    );
  }

  /**
   * A handler for every message of the conversations `plugin` follows (`ctx.follow()`), addressed
   * or not; commands still come first.
   */
  followed(plugin: string, handler: Handler, options: ListenerOptions = {}): void {
    this.#add("followed", plugin, (ctx) => ctx.followedBy.includes(plugin), handler, {
      what: "followed handler",
      ...options,
    });
  }

  /** A pattern listener: runs when `pattern` matches the addressed text; the match is on `ctx.match`. */
  hear(
    plugin: string,
    pattern: RegExp,
    handler: Handler<MessageContext & { match: RegExpExecArray }>,
    options: ListenerOptions = {},
  ): void {
    this.#add(
      "listener",
      plugin,
      (ctx): ctx is MessageContext & { match: RegExpExecArray } => {
        pattern.lastIndex = 0;
        const match = pattern.exec(ctx.text);
        if (!match) return false;
        ctx.match = match;
        return true;
      },
      handler,
      { what: `hear ${String(pattern)}`, ...options },
    );
  }

  /** Every registered command but hidden ones, once each, in registration order. */
  commands(): CommandInfo[] {
    return [...new Set(this.#commands.values())].filter((c) => !c.spec.hidden).map((c) => c.info);
  }

  /** The command called `name` (or with that alias). */
  find(name: string): RegisteredCommand | undefined {
    return this.#commands.get(name.toLowerCase());
  }

  /** Every name and alias but hidden commands', for suggestions. */
  names(): string[] {
    return [...this.#commands].filter(([, c]) => !c.spec.hidden).map(([name]) => name);
  }

  /**
   * The router as a middleware: the first matching entry handles the message, else `next()`. What
   * a handler throws goes up the middleware chain as a PluginError (after `handled`), so middleware
   * around `next()` sees it; what a call of an overlap strategy throws goes to `report`, since the
   * router has returned by then.
   */
  middleware(
    report: HandlerErrorReporter,
    handled?: HandledReporter,
    limits?: TimeLimits,
  ): Middleware<MessageContext> {
    // Handlers with an overlap strategy run their calls through their lanes.
    const { command, followed, listener, builtin, late } = this.#tiers;
    for (const tier of [command, followed, listener, builtin, late])
      for (const entry of tier) entry.overlap?.runWith(overlapCall(entry, report, handled));
    // The command and builtin tiers are all commands: they are found by name (`#byName`).
    const byName = this.#byName;
    const run = (entry: Entry, ctx: MessageContext) => runEntry(entry, ctx, handled, limits);
    return (ctx, next) => {
      const word =
        ctx.addressedVia !== null && (byName.command.size > 0 || byName.builtin.size > 0)
          ? commandWordAt(ctx.text)
          : undefined;
      const entry =
        commandMatch(byName.command, ctx, word) ??
        firstMatch(followed, ctx) ??
        firstMatch(listener, ctx) ??
        commandMatch(byName.builtin, ctx, word) ??
        firstMatch(late, ctx);
      if (!entry) return next();
      ctx.plugin = entry.plugin;
      if (entry.overlap !== undefined) return admitOverlapping(entry, entry.overlap, ctx);
      return run(entry, ctx);
    };
  }
}

function originOf(entry: Entry): HandlerOrigin {
  return {
    plugin: entry.plugin,
    kind: entry.kind,
    ...(entry.errorReply !== undefined && { errorReply: entry.errorReply }),
  };
}

/**
 * The overlap path (handlers with a strategy other than `queue`): the guard runs now, in the
 * conversation's turn, then the message is held by the handler's lane for this conversation. The
 * router returns once it is held, so the conversation moves on; the call runs later.
 */
async function admitOverlapping(
  entry: Entry,
  lanes: OverlapLanes,
  ctx: MessageContext,
): Promise<void> {
  try {
    if (entry.guard !== undefined && !(await entry.guard(ctx))) return;
  } catch (error) {
    throw new PluginError(error, ctx, originOf(entry));
  }
  await lanes.admit(ctx);
}

/** One call of a handler with an overlap strategy: errors reported as on the direct path. */
function overlapCall(
  entry: Entry,
  report: HandlerErrorReporter,
  handled: HandledReporter | undefined,
): (ctx: MessageContext) => Promise<void> {
  const handler = entry.bare ?? entry.handler;
  return async (ctx) => {
    const started = handled ? performance.now() : 0;
    try {
      await handler(ctx);
    } catch (error) {
      // An interrupted call that gives up by throwing (its signal's reason) is no failure.
      if (!ctx.signal.aborted) await report(new PluginError(error, ctx, originOf(entry)));
    }
    handled?.(ctx, { plugin: entry.plugin, kind: entry.kind, ms: performance.now() - started });
  };
}

/**
 * Runs one handler; what it throws is thrown on as a PluginError. A handler that returns no promise (a synchronous
 * one, as many commands are) is run without making one: this runs for every handled message.
 */
function runEntry(
  entry: Entry,
  ctx: MessageContext,
  handled: HandledReporter | undefined,
  limits?: TimeLimits,
): void | Promise<void> {
  const started = handled ? performance.now() : 0;
  let result: unknown;
  try {
    result = entry.handler(ctx);
  } catch (error) {
    return failed(error, entry, ctx, handled, started);
  }
  if (isThenable(result)) {
    if (limits) result = limits.apply(result, ctx, entry.plugin, entry.kind, entry.timeoutMs);
    return settle(result as PromiseLike<unknown>, entry, ctx, handled, started);
  }
  handled?.(ctx, { plugin: entry.plugin, kind: entry.kind, ms: performance.now() - started });
}

/** The rest of `runEntry` for a handler that returned a promise. */
async function settle(
  result: PromiseLike<unknown>,
  entry: Entry,
  ctx: MessageContext,
  handled: HandledReporter | undefined,
  started: number,
): Promise<void> {
  try {
    await result;
  } catch (error) {
    return failed(error, entry, ctx, handled, started);
  }
  handled?.(ctx, { plugin: entry.plugin, kind: entry.kind, ms: performance.now() - started });
}

/** A handler threw: told as handled (it ran), then thrown up the chain as a PluginError. */
function failed(
  error: unknown,
  entry: Entry,
  ctx: MessageContext,
  handled: HandledReporter | undefined,
  started: number,
): Promise<never> {
  handled?.(ctx, { plugin: entry.plugin, kind: entry.kind, ms: performance.now() - started });
  return Promise.reject(new PluginError(error, ctx, originOf(entry)));
}
