// `bot dev`: chat with your bot in the terminal, against the embedded sandbox, with plugins reloaded on save.
import { runDevSession } from "../../dev/session.js";

export interface DevCommandOptions {
  config: string;
  as: string;
  watch: boolean;
}

/** Runs the interactive session on the process's terminal; resolves with the exit code. */
export function runDev(options: DevCommandOptions): Promise<number> {
  return runDevSession({
    config: options.config,
    as: options.as,
    watch: options.watch,
    input: process.stdin,
    output: process.stdout,
  });
}
