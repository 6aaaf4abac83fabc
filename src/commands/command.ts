// Command specs: what a command declares (subcommands included), checking the declaration, resolving an invocation, the usage line.
import type { CommandInvocation } from "../model/command.js";
import type { RoleName } from "../api/common.js";
import type { MessageContext } from "../context/context.js";
import type { Overlap } from "../model/overlap.js";
import { bind, optionIndex, optionWord, UsageError, type ParamShape } from "./parse.js";
import { toArg, type Arg, type ArgEnv, type ArgsShape, type ArgValues } from "./types.js";

/** What `bot.command(name, spec, handler)` declares. */
export interface CommandSpec<A extends ArgsShape = ArgsShape, O extends ArgsShape = ArgsShape> {
  description?: string;
  aliases?: string[];
  /** Positional arguments, in order; the last may be `arg.rest()`. Without `args`, any text is accepted. */
  args?: A;
  /** `--name value` options and `--flag` flags. */
  options?: O;
  /** Only senders with one of these roles may run the command. */
  roles?: readonly RoleName[];
  /** Example invocations shown by `help`, without the prefix. */
  examples?: string[];
  /**
   * Left out of `help`'s list and `bot.commands()` (still run, and `help <name>` explains it):
   * what a card's button sends (`bot.action`), which nobody needs listed.
   */
  hidden?: boolean;
  /**
   * Subcommands by name (`!todo add <text>`, `!todo list`), each made with `subcommand()`, with
   * its own arguments, options, usage and handler. A command with subcommands takes no `args`.
   */
  subcommands?: Record<string, Subcommand>;
  /**
   * What happens to messages that reach this command in a conversation while it still runs there
   * (`queue`, `latest`, `burst`, `interrupt`, `concurrent`; see docs/agents.md). Default: the
   * plugin's `overlap`, else `queue`.
   */
  overlap?: Overlap;
  /**
   * Longest this command's handler may run, in ms (`false`: no limit); past it `ctx.signal`
   * aborts, its slot is freed and the sender told. Default: the plugin's, else the bot's
   * (`handlers.timeoutMs`, 10 minutes).
   */
  timeoutMs?: number | false;
}

/** A subcommand's declaration: like a command's, without aliases of the parent or nested subcommands. */
export type SubcommandSpec<A extends ArgsShape = ArgsShape, O extends ArgsShape = ArgsShape> = Omit<
  CommandSpec<A, O>,
  "subcommands" | "roles" | "overlap"
> & {
  /** Only senders with one of these roles may run this subcommand (on top of the parent's roles). */
  roles?: readonly RoleName[];
};

/** A subcommand, made by `subcommand(spec, handler)`: its spec and its handler, typed together. */
export interface Subcommand {
  readonly spec: SubcommandSpec;
  readonly handler: (ctx: never) => unknown;
}

/** The invocation type a spec produces. */
export type InvocationOf<A extends ArgsShape, O extends ArgsShape> = CommandInvocation<
  ArgValues<A>,
  ArgValues<O>
>;

/** A command as `help` and `bot.commands()` show it. */
export interface CommandInfo {
  name: string;
  plugin: string;
  description?: string;
  aliases?: string[];
  examples?: string[];
  roles?: readonly RoleName[];
  /** The usage line without the prefix, e.g. `remind <who:user> <when:time> <what...>`. */
  usage: string;
  /** The subcommands, in declaration order, as `help` shows them. */
  subcommands?: CommandInfo[];
}

/** A spec turned into argument types once, at registration. */
export interface CompiledSpec {
  positionals: [string, Arg<unknown>][];
  options: [string, Arg<unknown>][];
  optionsByWord: ReadonlyMap<string, readonly [name: string, shape: ParamShape]>;
  /** Whether every argument type reads its text synchronously (the fast path of resolution). */
  sync: boolean;
  /** The subcommands by lower-cased name and alias. */
  subcommands?: ReadonlyMap<string, CompiledSubcommand>;
}

/** A subcommand ready to run: its canonical name, spec, compiled arguments, help entry, handler. */
export interface CompiledSubcommand {
  name: string;
  spec: SubcommandSpec;
  compiled: CompiledSpec;
  info: CommandInfo;
  handler: (ctx: never) => unknown;
}

/** Checks a spec and prepares it; throws naming the command when the declaration cannot work. */
export function compileSpec(command: string, spec: CommandSpec): CompiledSpec {
  if (spec.subcommands !== undefined) {
    if (spec.args !== undefined)
      throw new Error(
        `command "${command}": a command with subcommands takes its arguments in each subcommand, not in args`,
      );
    return { ...compileParams(command, spec), subcommands: compileSubcommands(command, spec) };
  }
  return compileParams(command, spec);
}

function compileSubcommands(
  command: string,
  spec: CommandSpec,
): ReadonlyMap<string, CompiledSubcommand> {
  const byName = new Map<string, CompiledSubcommand>();
  for (const [name, sub] of Object.entries(spec.subcommands ?? {})) {
    const full = `${command} ${name}`;
    if (/\s/.test(name) || name === "")
      throw new Error(`command "${command}": subcommand name "${name}" must be one word`);
    if (typeof sub?.handler !== "function")
      throw new Error(`command "${full}": make subcommands with subcommand(spec, handler)`);
    const compiled = compileParams(full, sub.spec);
    const info: CommandInfo = {
      name,
      plugin: "",
      usage: usageLine(full, compiled),
      ...(sub.spec.description !== undefined && { description: sub.spec.description }),
      ...(sub.spec.aliases?.length && { aliases: sub.spec.aliases }),
      ...(sub.spec.examples?.length && { examples: sub.spec.examples }),
      ...(sub.spec.roles?.length && { roles: sub.spec.roles }),
    };
    const entry: CompiledSubcommand = {
      name,
      spec: sub.spec,
      compiled,
      info,
      handler: sub.handler,
    };
    for (const n of [name, ...(sub.spec.aliases ?? [])]) {
      const key = n.toLowerCase();
      if (byName.has(key))
        throw new Error(`command "${command}": subcommand "${key}" is declared twice`);
      byName.set(key, entry);
    }
  }
  if (byName.size === 0) throw new Error(`command "${command}": subcommands is empty`);
  return byName;
}

/** The subcommands' help entries, once each, in declaration order, as the plugin's. */
export function subcommandInfos(compiled: CompiledSpec, plugin: string): CommandInfo[] {
  return [...new Set(compiled.subcommands?.values())].map((s) => ({ ...s.info, plugin }));
}

/** The arguments and options of one command or subcommand, checked and compiled. */
function compileParams(command: string, spec: CommandSpec | SubcommandSpec): CompiledSpec {
  const positionals = Object.entries(spec.args ?? {}).map(
    ([n, a]) => [n, toArg(a)] as [string, Arg<unknown>],
  );
  const options = Object.entries(spec.options ?? {}).map(
    ([n, a]) => [n, toArg(a)] as [string, Arg<unknown>],
  );
  positionals.forEach(([name, a], i) => {
    if (a.rest && i !== positionals.length - 1)
      throw new Error(`command "${command}": rest argument <${name}> must be the last argument`);
    if (a.flag)
      throw new Error(`command "${command}": flag <${name}> belongs in options, not args`);
    const before = positionals[i - 1];
    if (a.required && before && !before[1].required)
      throw new Error(
        `command "${command}": required argument <${name}> cannot follow optional <${before[0]}>`,
      );
  });
  for (const [name, a] of options)
    if (a.rest) throw new Error(`command "${command}": option --${name} cannot be a rest argument`);
  const sync = [...positionals, ...options].every(([, a]) => a.sync);
  return {
    positionals,
    options,
    optionsByWord: optionIndex(options),
    sync,
  };
}

/** `<who:user>`, `[when:time]`, `<what...>`, `[--silent]`, `[--at <time>]`. */
export function usageLine(name: string, compiled: CompiledSpec): string {
  const parts = [name];
  if (compiled.subcommands)
    parts.push(
      `<${[...new Set([...compiled.subcommands.values()].map((s) => s.name))].join("|")}>`,
    );
  for (const [param, a] of compiled.positionals) {
    const label = a.rest ? `${param}...` : a.kind === "text" ? param : `${param}:${a.kind}`;
    parts.push(a.required ? `<${label}>` : `[${label}]`);
  }
  for (const [param, a] of compiled.options) {
    const word = `--${optionWord(param)}`;
    const text = a.flag ? word : `${word} <${a.kind}>`;
    parts.push(a.required ? text : `[${text}]`);
  }
  return parts.join(" ");
}

/** Typed arguments and options, as `ctx.command` carries them. */
export interface Resolved {
  args: Record<string, unknown>;
  options: Record<string, unknown>;
}

/** The UsageError of an argument type, with the parameter it is about named in front. */
function atParam(error: unknown, name: string, option: boolean): unknown {
  if (!(error instanceof UsageError)) return error;
  const where = option ? `\`--${optionWord(name)}\`` : `<${name}>`;
  return new UsageError(`${where}: ${error.message}`, name);
}

/**
 * Reads the text after the command name into typed arguments and options.
 * Throws (or rejects with) UsageError, the parameter named, when the text does not fit the spec.
 * Synchronous when every argument type is (numbers, words, choices, integers, text): no
 * promise is made on that path, which is most commands.
 */
export function resolveInvocation(
  compiled: CompiledSpec,
  text: string,
  env: ArgEnv,
): Resolved | Promise<Resolved> {
  const bound = bind(text, compiled);
  if (compiled.sync) {
    const args = new ArgRecord();
    const options = new ArgRecord();
    readSync(compiled.positionals, bound.positionals, args, env, false);
    readSync(compiled.options, bound.options, options, env, true);
    return { args, options };
  }
  return resolveAsync(compiled, bound.positionals, bound.options, env);
}

/**
 * What `args` and `options` are made of: plain objects, with `Object.prototype` as `{}` has, made
 * by a constructor of their own so that their hidden class starts apart from that of `{}`. A
 * fast path: each resolved value adds a property under a name the store cannot know in advance,
 * and V8 finds the new hidden class among the transitions of the old one, which for `{}` are
 * those of every object the program built from `{}`; here, those of the declared arguments.
 */
const ArgRecord = function ArgRecord() {
  // Nothing to set: the values are added by name.
} as unknown as new () => Record<string, unknown>;
ArgRecord.prototype = Object.prototype;

/** `readSync` over values by parameter position. */
function readValues(
  params: readonly [string, Arg<unknown>][],
  values: readonly (string | true | undefined)[],
  out: Record<string, unknown>,
  env: ArgEnv,
  option: boolean,
): void {
  for (let k = 0; k < params.length; k++) {
    // Indexing, not `const [name, a] = ...`: array destructuring goes through the iterator protocol.
    const name = params[k]![0];
    const a = params[k]![1];
    const value = values[k];
    if (value === undefined) {
      out[name] = a.fallback?.();
      continue;
    }
    try {
      out[name] = a.parse(value === true ? "" : value, env);
    } catch (error) {
      throw atParam(error, name, option);
    }
  }
}

/** `readValues` for values found by name (the general path). */
function readSync(
  params: readonly [string, Arg<unknown>][],
  raw: ReadonlyMap<string, string | true>,
  out: Record<string, unknown>,
  env: ArgEnv,
  option: boolean,
): void {
  readValues(
    params,
    params.map(([name]) => raw.get(name)),
    out,
    env,
    option,
  );
}

async function resolveAsync(
  compiled: CompiledSpec,
  positionals: ReadonlyMap<string, string>,
  options: ReadonlyMap<string, string | true>,
  env: ArgEnv,
): Promise<Resolved> {
  const read = async (
    params: readonly [string, Arg<unknown>][],
    raw: ReadonlyMap<string, string | true>,
    option: boolean,
  ): Promise<Record<string, unknown>> => {
    const out = new ArgRecord();
    for (const [name, a] of params) {
      const value = raw.get(name);
      if (value === undefined) {
        out[name] = a.fallback?.();
        continue;
      }
      try {
        out[name] = await a.parse(value === true ? "" : value, env);
      } catch (error) {
        throw atParam(error, name, option);
      }
    }
    return out;
  };
  return {
    args: await read(compiled.positionals, positionals, false),
    options: await read(compiled.options, options, true),
  };
}

/**
 * A subcommand for `bot.command(name, { subcommands: { ... } })`: its spec and its handler,
 * typed together (`ctx.command.args` is exactly what its `args` declare).
 *
 * @example
 * bot.command("todo", {
 *   description: "Your to-do list",
 *   subcommands: {
 *     add: subcommand({ description: "Add an item", args: { item: arg.text({ max: 200 }) } },
 *       (ctx) => ctx.reply(`Added ${ctx.command.args.item}`)),
 *     list: subcommand({ description: "List the items" }, (ctx) => ctx.reply("...")),
 *   },
 * });
 */
export function subcommand<
  A extends ArgsShape = Record<never, never>,
  O extends ArgsShape = Record<never, never>,
>(spec: SubcommandSpec<A, O>, handler: (ctx: SubcommandContext<A, O>) => unknown): Subcommand {
  return { spec: spec as SubcommandSpec, handler: handler as (ctx: never) => unknown };
}

/** The context a subcommand handler gets: `ctx.command.args` and `options` typed from its spec. */
export type SubcommandContext<
  A extends ArgsShape = Record<never, never>,
  O extends ArgsShape = Record<never, never>,
> = Omit<MessageContext, "command"> & { command: InvocationOf<A, O> & { subcommand: string } };

/** The handler of a command with subcommands: runs the one the guard picked. */
export function runSubcommand(spec: CommandSpec): (ctx: { command: CommandInvocation }) => unknown {
  return (ctx) => {
    const name = ctx.command.subcommand;
    const sub = name === undefined ? undefined : spec.subcommands?.[name];
    if (!sub) throw new Error(`no subcommand "${name}" was resolved`);
    return sub.handler(ctx as never);
  };
}
