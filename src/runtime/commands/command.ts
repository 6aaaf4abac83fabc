// Command specs: what a command declares, checking the declaration, resolving an invocation, the usage line.
import type { RoleName } from "../../api/common.js";
import { bind, optionWord, UsageError } from "./parse.js";
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
}

/** The command that matched, on `ctx.command`. */
export interface CommandInvocation<
  A extends Record<string, unknown> = Record<string, unknown>,
  O extends Record<string, unknown> = Record<string, unknown>,
> {
  /** The command's canonical name (an alias resolves to it). */
  name: string;
  /** The positional arguments, typed from the spec. */
  args: A;
  /** The options, typed from the spec; absent flags are false. */
  options: O;
  /** What followed the command name, untouched. */
  text: string;
  /** The whole addressed text, command name included. */
  raw: string;
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
}

/** A spec turned into argument types once, at registration. */
export interface CompiledSpec {
  positionals: [string, Arg<unknown>][];
  options: [string, Arg<unknown>][];
}

/** Checks a spec and prepares it; throws naming the command when the declaration cannot work. */
export function compileSpec(command: string, spec: CommandSpec): CompiledSpec {
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
  return { positionals, options };
}

/** `<who:user>`, `[when:time]`, `<what...>`, `[--silent]`, `[--at <time>]`. */
export function usageLine(name: string, compiled: CompiledSpec): string {
  const parts = [name];
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

/**
 * Reads the text after the command name into typed arguments and options.
 * Throws UsageError (with the parameter named) when the text does not fit the spec.
 */
export async function resolveInvocation(
  compiled: CompiledSpec,
  text: string,
  env: ArgEnv,
): Promise<{ args: Record<string, unknown>; options: Record<string, unknown> }> {
  const bound = bind(text, compiled);
  const read = async (
    params: [string, Arg<unknown>][],
    raw: Map<string, string | true>,
    option: boolean,
  ): Promise<Record<string, unknown>> => {
    const out: Record<string, unknown> = {};
    for (const [name, a] of params) {
      const value = raw.get(name);
      if (value === undefined) {
        out[name] = a.fallback?.();
        continue;
      }
      try {
        out[name] = await a.parse(value === true ? "" : value, env);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        const where = option ? `\`--${optionWord(name)}\`` : `<${name}>`;
        throw new UsageError(`${where}: ${error.message}`, name);
      }
    }
    return out;
  };
  return {
    args: await read(compiled.positionals, bound.positionals, false),
    options: await read(compiled.options, bound.options, true),
  };
}
