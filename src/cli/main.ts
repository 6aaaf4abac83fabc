// The `bot` command: parses arguments (commander) and runs a subcommand; errors become clear messages.
import type { CommanderError } from "commander";
import { ConfigError } from "../config/errors.js";
import { ApiError } from "../client/errors.js";
import { processOutput, type Output } from "./output.js";
import { ownPackage } from "../own-files.js";
import type { ClusterStatusOptions } from "./commands/cluster.js";
import type { DevCommandOptions } from "./commands/dev.js";
import type { StartOptions } from "./commands/start.js";

interface RecordCommandOptions {
  config: string;
  out: string;
  hashContent: boolean;
  sanitize: boolean;
  maxBytes?: number;
  keep?: number;
}
import { plainStartOptions } from "./plain-start.js";

// Each subcommand's module is imported when that subcommand runs, not before: `bot start` never
// loads the sandbox, the dev session, `bot init`'s templates or the config's JSON Schema
// (start-up time and idle memory, issue 17).

/** Help and version exit 0; every other commander error is bad usage: exit 2, as documented. */
const commanderExitCode = (error: CommanderError): number => (error.exitCode === 0 ? 0 : 2);

/** The exit code for an error a command threw, after telling the user what went wrong. */
function reportError(error: unknown, out: Output): number {
  if (error instanceof ConfigError) {
    out.stderr(`error: ${error.message}`);
    return 2;
  }
  if (error instanceof ApiError) {
    out.stderr(`error: ${error.message}`);
    return 1;
  }
  out.stderr(`error: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}

/**
 * `bot start` failing before its logger exists (a config error, a storage it cannot use): the
 * message on standard error as for every command, and, where the log is JSON lines (standard
 * output not a terminal, as under systemd or Docker), the same as one pino-shaped line there too,
 * so that log collectors see why the bot did not start.
 */
function reportStartError(error: unknown, out: Output): number {
  const code = reportError(error, out);
  if (out === processOutput && process.stdout.isTTY) return code;
  const line: Record<string, unknown> = {
    level: 60,
    time: Date.now(),
    msg: `bot start failed: ${error instanceof Error ? error.message : String(error)}`,
    exitCode: code,
  };
  if (error instanceof ConfigError) line.config = { file: error.file, key: error.key };
  out.stdout(JSON.stringify(line));
  return code;
}

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export async function main(argv: string[], out: Output = processOutput): Promise<number> {
  const start = plainStartOptions(argv);
  if (start) {
    try {
      const { runStart } = await import("./commands/start.js");
      return await runStart(start, out);
    } catch (error) {
      return reportStartError(error, out);
    }
  }
  const { Command, CommanderError, InvalidArgumentError } = await import("commander");
  const { registerSend } = await import("./commands/send.js");
  const positiveNumber = (value: string, min: number, max: number): number => {
    const n = Number(value);
    if (value.trim() === "" || !Number.isFinite(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected a number from ${min} to ${max}`);
    return n;
  };
  const parsePort = (value: string): number => {
    const port = Number(value);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new InvalidArgumentError("expected a port number 0-65535");
    return port;
  };
  let exitCode = 0;
  const program = new Command()
    .name("bot")
    .description("topicbot: run and develop chat bots for servers that speak the Zulip REST API")
    .version(ownPackage().version, "-V, --version", "print topicbot's version")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => out.stdout(s.trimEnd()),
      writeErr: (s) => out.stderr(s.trimEnd()),
    });

  program
    .command("start")
    .description(
      "run the bot described by the config file (the embedded sandbox when no server is set)",
    )
    .option("-c, --config <file>", "configuration file", "bot.config.yaml")
    .option(
      "--cluster <redis-url>",
      "run as one node of a cluster on this Redis, e.g. redis://127.0.0.1:6379/0 (docs/cluster.md)",
    )
    .option(
      "--recover",
      "start even if the delivery journal or the store file is damaged: from the safest point left, with a warning (storage.onDamage: recover; docs/reliability.md)",
    )
    .option(
      "--stop-timeout <ms>",
      "on SIGTERM, how long running handlers get to finish (overrides stopTimeoutMs)",
      (value: string) => positiveNumber(value, 0, 3_600_000),
    )
    .option(
      "--long-poll-timeout <seconds>",
      "how long a long poll may stay unanswered (overrides server.longPollTimeoutSeconds)",
      (value: string) => positiveNumber(value, 10, 3_600),
    )
    .action(async (opts: StartOptions) => {
      const { runStart } = await import("./commands/start.js");
      try {
        exitCode = await runStart(opts, out);
      } catch (error) {
        exitCode = reportStartError(error, out);
      }
    });

  program
    .command("record")
    .description(
      "run the bot as `bot start` does, recording everything it exchanges with the server to a cassette (docs/testing.md)",
    )
    .option("-c, --config <file>", "configuration file", "bot.config.yaml")
    .option("-o, --out <file>", "the cassette file to write (JSON lines)", "cassette.jsonl")
    .option("--hash-content", "replace message content by its SHA-256", false)
    .option("--no-sanitize", "keep emails and names as they are (the cassette is then a secret)")
    .option(
      "--max-bytes <n>",
      "rotate the cassette past this size (default 64 MiB)",
      (value: string) => positiveNumber(value, 4096, 2 ** 40),
    )
    .option("--keep <n>", "rotated files kept (default 3)", (value: string) =>
      positiveNumber(value, 0, 100),
    )
    .action(async (opts: RecordCommandOptions) => {
      const { runStart } = await import("./commands/start.js");
      try {
        exitCode = await runStart(
          {
            config: opts.config,
            record: {
              path: opts.out,
              sanitize: opts.sanitize,
              hashContent: opts.hashContent,
              maxBytes: Math.floor(opts.maxBytes ?? 64 * 1024 * 1024),
              keep: Math.floor(opts.keep ?? 3),
            },
          },
          out,
        );
      } catch (error) {
        exitCode = reportStartError(error, out);
      }
    });

  program
    .command("replay")
    .description(
      "replay a cassette's requests against the embedded sandbox and report how its answers differ (docs/testing.md)",
    )
    .argument("<cassette>", "the cassette file")
    .option("--diff", "report every difference from the recorded answers (the default)", true)
    .option("-o, --out <file>", "write the Markdown report there instead of standard output")
    .action(async (cassette: string, opts: { out?: string }) => {
      const { runReplay } = await import("./commands/replay.js");
      exitCode = await runReplay({ cassette, out: opts.out }, out);
    });

  program
    .command("cluster")
    .description("cluster mode (docs/cluster.md)")
    .command("status")
    .description("print the cluster's members, leader, partitions and lag, read from its Redis")
    .option("-c, --config <file>", "configuration file", "bot.config.yaml")
    .option("--cluster <redis-url>", "the cluster's Redis (default: cluster.redis of the config)")
    .option("--json", "print one JSON object", false)
    .action(async (opts: ClusterStatusOptions) => {
      const { runClusterStatus } = await import("./commands/cluster.js");
      exitCode = await runClusterStatus(opts, out);
    });

  program
    .command("dev")
    .description(
      "chat with the bot in the terminal: on the configured server as yourself (--me), else in the embedded sandbox; plugins reload when their files change",
    )
    .option("-c, --config <file>", "configuration file", "bot.config.yaml")
    .option(
      "--me <zuliprc>",
      "your own account's zuliprc, to chat on the configured server as yourself (default: $TOPICBOT_DEV_ZULIPRC)",
    )
    .option("--sandbox", "use the embedded sandbox even when a server is configured", false)
    .option(
      "--as <handle>",
      "sandbox only: the user you speak as: olivia, adam, max, mia (default) or gus",
    )
    .option("--no-watch", "do not reload plugins when their files change")
    .option(
      "--web [port]",
      "also serve the dev console page on 127.0.0.1 (a free port unless given); open the printed URL",
      parsePort,
    )
    .option(
      "--mock-model",
      "answer(ctx, …) from topicbot/ai uses the AI SDK mock language model (no provider, no key)",
      false,
    )
    .action(async (opts: DevCommandOptions) => {
      const { runDev } = await import("./commands/dev.js");
      exitCode = await runDev(opts);
    });

  program
    .command("sandbox")
    .description("run the embedded sandbox server on its own")
    .option("-p, --port <port>", "port to listen on (0 picks a free one)", parsePort, 0)
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .option("--json", "print one JSON line with the URL and the seeded accounts", false)
    .action(async (opts: { port: number; host: string; json: boolean }) => {
      const { runSandbox } = await import("./commands/sandbox.js");
      await runSandbox(opts, out);
    });

  program
    .command("check")
    .description(
      "validate the config and plugin settings, connect, and show who the bot is and what it will listen to",
    )
    .option("-c, --config <file>", "configuration file", "bot.config.yaml")
    .action(async (opts: { config: string }) => {
      const { runCheck } = await import("./commands/check.js");
      exitCode = await runCheck(opts, out);
    });

  program
    .command("init")
    .description("create a new bot project: config, a plugin with its test, README")
    .argument("[dir]", "folder to create it in", ".")
    .option("-f, --force", "overwrite files that already exist", false)
    .option(
      "--topicbot <spec>",
      "the topicbot dependency to write (default: this version's range, or file:<checkout> when run from a clone)",
    )
    .action(async (dir: string, opts: { force: boolean; topicbot?: string }) => {
      const { runInit } = await import("./commands/init.js");
      exitCode = await runInit({ dir, force: opts.force, topicbot: opts.topicbot }, out);
    });

  program
    .command("schema")
    .description("print the JSON Schema of bot.config.yaml (for editors and tools)")
    .action(async () => {
      const { runSchema } = await import("./commands/schema.js");
      exitCode = runSchema(out);
    });

  registerSend(program, { out }, (code) => (exitCode = code));

  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return commanderExitCode(error);
    return reportError(error, out);
  }
}
