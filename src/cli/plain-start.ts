// The fast path of `bot start`: its few options read without commander, so a service's start-up skips building the CLI.
import type { StartOptions } from "./commands/start.js";

/**
 * Reads `bot start` as services run it: `start` followed only by `-c <file>` / `--config <file>` /
 * `--config=<file>` and `--cluster <url>` / `--cluster=<url>`. It exists because parsing that with
 * commander means importing commander and declaring every subcommand with its options first, a
 * cost paid on every start (issue 17, start-up time). Anything else (help, a value that looks like
 * an option, an unknown or combined flag, an empty value) answers undefined and goes to commander,
 * which parses it and words any error; for what it accepts, the result is what commander gives.
 */
export function plainStartOptions(argv: readonly string[]): StartOptions | undefined {
  if (argv[0] !== "start") return undefined;
  const options: StartOptions = { config: "bot.config.yaml" };
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "" || value.startsWith("-")) return undefined;
    if (name === "-c" || name === "--config") options.config = value;
    else if (name === "--cluster") options.cluster = value;
    else return undefined;
  }
  return options;
}
