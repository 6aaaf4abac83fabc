// Commands at run time: the guard before every handler (rate limit, roles, arguments), help, unknown commands.
import { code } from "../markdown/escape.js";
import type { MessageContext } from "../context/context.js";
import type { Middleware } from "./compose.js";
import type { Directory } from "../context/directory.js";
import { isTimeZone } from "../context/time.js";
import type { CommandContext, CommandGuard, RegisteredCommand, Router } from "./router.js";
import { splitCommandWord } from "./router.js";
import {
  resolveInvocation,
  type CommandSpec,
  type CompiledSpec,
  type Resolved,
} from "../commands/command.js";
import { CommandRateLimiter, roleRefusal, type RateLimit } from "../commands/guards.js";
import {
  helpFor,
  helpIndex,
  unknownCommandReply,
  unknownSubcommandReply,
} from "../commands/help.js";
import { UsageError } from "../commands/parse.js";
import { arg, type ArgEnv, type ArgsShape } from "../commands/types.js";
import type { IgnoredReason } from "../model/observer.js";

export interface CommandRuntimeOptions {
  prefix: string;
  directory: Directory;
  /** Per-user command limit; false for none. */
  rateLimit: RateLimit | false;
  /** The bot's time zone, for senders without one (resolved on first use). */
  timeZone: () => string;
  now: () => number;
  /** Answer addressed messages that match nothing with "did you mean". Default true. */
  unknownCommandReply: boolean;
  /** Told when a command is refused or matches nothing, and why. */
  ignored?: (ctx: MessageContext, why: IgnoredReason) => void;
}

/**
 * The usage reply: the usage line from the spec, then what was wrong.
 * `helpTopic` is what follows `help` for more (`remind`, `todo add`).
 */
export function usageReply(
  prefix: string,
  usage: string,
  helpTopic: string,
  problem: string,
): string {
  return `Usage: ${code(`${prefix}${usage}`)}\n${problem[0]!.toUpperCase()}${problem.slice(1)}. Say ${code(`${prefix}help ${helpTopic}`)} for more.`;
}

/** Argument notes for `help <command>`: the described arguments and options. */
function argumentNotes(compiled: CompiledSpec): string[] {
  const described = [...compiled.positionals, ...compiled.options].filter(([, a]) => a.description);
  return described.map(([name, a]) => `- ${code(name)} (${a.kind}): ${a.description}`);
}

/**
 * What argument types of one command may use: a class, so each command costs one small object.
 * The clock is read on first use of `now` (a time argument), not for every command.
 */
class SenderArgEnv implements ArgEnv {
  #now: number | undefined;

  constructor(
    readonly directory: Directory,
    readonly senderId: number,
    readonly clock: () => number,
    readonly fallbackZone: () => string,
  ) {}

  get now(): number {
    return (this.#now ??= this.clock());
  }

  /** The sender's profile time zone, else the configured one. */
  async timeZone(): Promise<string> {
    const sender = await this.directory.user(this.senderId).catch(() => undefined);
    return sender?.timezone && isTimeZone(sender.timezone) ? sender.timezone : this.fallbackZone();
  }
}

export function createCommandRuntime(options: CommandRuntimeOptions) {
  const { prefix, directory } = options;
  const limiter = options.rateLimit
    ? new CommandRateLimiter(options.rateLimit, options.now)
    : undefined;

  /**
   * True when the sender is within the command limit; else (after answering the sender once) a
   * promise of false. Synchronous when allowed, which is nearly always.
   */
  const withinLimit = (ctx: MessageContext): true | Promise<false> => {
    // Counted by when it was sent (the server's timestamp, seconds), not when it is handled.
    const sent = ctx.message.timestamp;
    const decision = limiter?.check(
      ctx.message.sender_id,
      Number.isFinite(sent) && sent > 0 ? sent * 1000 : undefined,
    );
    if (decision === undefined || decision.allowed) return true;
    return refuseOverLimit(ctx, decision.notify, decision.retryInMs);
  };

  const refuseOverLimit = async (
    ctx: MessageContext,
    notify: boolean,
    retryInMs: number,
  ): Promise<false> => {
    options.ignored?.(ctx, { reason: "rate-limited", retryInMs });
    ctx.log.info({ userId: ctx.sender.userId }, "command rate limit: dropping a command");
    if (notify) await ctx.reply(CommandRateLimiter.message(retryInMs));
    return false;
  };

  const argEnv = (ctx: MessageContext): ArgEnv =>
    new SenderArgEnv(directory, ctx.message.sender_id, options.now, options.timeZone);

  /** False (after telling the sender) when the sender's role is not among `roles`. */
  const roleAllows = async (
    ctx: MessageContext,
    roles: CommandSpec["roles"],
    name: string,
  ): Promise<boolean> => {
    if (!roles?.length) return true;
    const sender = await directory.user(ctx.sender.userId);
    if (sender && roles.includes(sender.role as never)) return true;
    ctx.log.info({ command: name, role: sender?.role }, "refused: role not allowed");
    const reply = roleRefusal(name, roles, prefix);
    options.ignored?.(ctx, { reason: "role-refused", command: name, role: sender?.role, reply });
    await ctx.reply(reply);
    return false;
  };

  /**
   * The guard's fast path: a command without roles or subcommands whose argument types all read
   * text synchronously (numbers, words, choices) is checked without a promise or an async frame,
   * since this runs for every command; anything else goes through `guardAsync`.
   */
  const guard: CommandGuard = (ctx, command) => {
    const { spec, compiled, info } = command;
    if (spec.roles?.length || compiled.subcommands || !compiled.sync)
      return guardAsync(ctx, command);
    const within = withinLimit(ctx);
    if (within !== true) return within;
    if (spec.args === undefined && spec.options === undefined) return true;
    try {
      setArguments(ctx, resolveInvocation(compiled, ctx.command.text, argEnv(ctx)) as Resolved);
      return true;
    } catch (error) {
      return usageRefusal(ctx, error, info.usage, info.name, info.name);
    }
  };

  const setArguments = (ctx: CommandContext<ArgsShape, ArgsShape>, resolved: Resolved): void => {
    ctx.command.args = resolved.args;
    ctx.command.options = resolved.options;
  };

  /** Tells the sender how to call the command (a UsageError); rethrows anything else. */
  const usageRefusal = async (
    ctx: MessageContext,
    error: unknown,
    usage: string,
    helpTopic: string,
    name: string,
  ): Promise<false> => {
    if (!(error instanceof UsageError)) throw error;
    const reply = usageReply(prefix, usage, helpTopic, error.message);
    options.ignored?.(ctx, { reason: "usage", command: name, reply });
    await ctx.reply(reply);
    return false;
  };

  const guardAsync = async (
    ctx: CommandContext<ArgsShape, ArgsShape>,
    command: RegisteredCommand,
  ): Promise<boolean> => {
    if (!(await withinLimit(ctx))) return false;
    if (!(await roleAllows(ctx, command.spec.roles, command.info.name))) return false;
    let spec: Pick<CommandSpec, "args" | "options"> = command.spec;
    let compiled = command.compiled;
    let usage = command.info.usage;
    let helpTopic = command.info.name;
    const subcommands = compiled.subcommands;
    if (subcommands) {
      // `!todo add milk`: the first word picks the subcommand, the rest are its arguments.
      const split = splitCommandWord(ctx.command.text);
      const sub = split && subcommands.get(split.word.toLowerCase());
      if (!sub) {
        await ctx.reply(unknownSubcommandReply(command.info, split?.word, prefix));
        return false;
      }
      helpTopic = `${command.info.name} ${sub.name}`;
      if (!(await roleAllows(ctx, sub.spec.roles, helpTopic))) return false;
      ctx.command.subcommand = sub.name;
      ctx.command.text = split.rest;
      ({ spec, compiled } = sub);
      usage = sub.info.usage;
    }
    // Without `args` or `options` the command takes free text (ctx.command.text).
    if (spec.args === undefined && spec.options === undefined) return true;
    try {
      setArguments(ctx, await resolveInvocation(compiled, ctx.command.text, argEnv(ctx)));
    } catch (error) {
      return usageRefusal(ctx, error, usage, helpTopic, command.info.name);
    }
    return true;
  };

  /** The last middleware: an addressed message nothing handled gets "did you mean". */
  const unknownCommand = (router: Router): Middleware<MessageContext> => {
    return async (ctx, next) => {
      if (!options.unknownCommandReply || ctx.addressedVia === null) return next();
      const word = splitCommandWord(ctx.text)?.word;
      if (!(await withinLimit(ctx))) return;
      const reply = word
        ? unknownCommandReply(word, router.names(), prefix)
        : `Hello! Say ${code(`${prefix}help`)} to see what I can do.`;
      options.ignored?.(ctx, { reason: "unknown-command", word, reply });
      await ctx.reply(reply);
    };
  };

  /** Registers the built-in `help [command]` unless a plugin took the name. */
  const registerHelp = (router: Router, plugins: ReadonlyMap<string, string | undefined>): void => {
    if (router.find("help")) return;
    router.command(
      "builtin",
      "help",
      {
        description: "List the commands, or explain one",
        args: { command: arg.string().optional(), subcommand: arg.string().optional() },
        examples: ["help", "help ping"],
      },
      async (ctx) => {
        const given = ctx.command.args.command ?? "";
        const wanted = given.startsWith(prefix) ? given.slice(prefix.length) : given;
        if (wanted === "") {
          await ctx.reply(helpIndex(router.commands(), plugins, prefix));
          return;
        }
        const found = router.find(wanted);
        if (!found) {
          await ctx.reply(unknownCommandReply(wanted, router.names(), prefix));
          return;
        }
        const subWord = ctx.command.args.subcommand;
        if (subWord === undefined || !found.compiled.subcommands) {
          await ctx.reply(helpFor(found.info, prefix, argumentNotes(found.compiled)));
          return;
        }
        const sub = found.compiled.subcommands.get(subWord.toLowerCase());
        await ctx.reply(
          sub
            ? helpFor(sub.info, prefix, argumentNotes(sub.compiled), `${found.info.name} `)
            : unknownSubcommandReply(found.info, subWord, prefix),
        );
      },
    );
  };

  return { guard, unknownCommand, registerHelp };
}
