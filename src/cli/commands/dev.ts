// `bot dev`: chat with your bot in the terminal, on the configured server or the embedded sandbox, with plugins reloaded on save.
import { runDevSession } from "../../dev/session.js";

export interface DevCommandOptions {
  config: string;
  /** The developer's zuliprc (`--me`); `TOPICBOT_DEV_ZULIPRC` when absent. */
  me?: string;
  sandbox: boolean;
  as?: string;
  watch: boolean;
  /** `--web [port]`: true (a free port) or the port given. */
  web?: true | number;
  /** `--mock-model`: `answer` from `topicbot/ai` uses the AI SDK mock model, whatever model it names. */
  mockModel?: boolean;
}

/** What `topicbot/ai` reads (src/ai/mock.ts's MOCK_MODEL_ENV; not imported, so `ai` stays optional). */
const MOCK_MODEL_ENV = "TOPICBOT_MOCK_MODEL";

/**
 * Runs the interactive session on the process's terminal; resolves with the exit code.
 *
 * @example
 * process.exitCode = await runDev({ config: "bot.config.yaml", sandbox: false, watch: true });
 */
export function runDev(options: DevCommandOptions): Promise<number> {
  // Set before the plugins load; their `answer` calls read it per answer.
  if (options.mockModel) process.env[MOCK_MODEL_ENV] = "1";
  return runDevSession({
    config: options.config,
    me: options.me,
    sandbox: options.sandbox,
    as: options.as,
    watch: options.watch,
    web: options.web === undefined ? undefined : { port: options.web === true ? 0 : options.web },
    input: process.stdin,
    output: process.stdout,
  });
}
