// Where a CLI command connects: the configured server, or a fresh embedded sandbox when none is set.
import type { BotConfig, ServerConfig } from "../config/schema.js";
import { configSecrets } from "../config/secrets.js";
import { serverSecrets } from "../log/logger.js";
import type { Sandbox, SandboxOptions } from "../sandbox/server.js";

export interface Target {
  server: ServerConfig;
  /** The embedded sandbox started because the config names no server; close it when done. */
  sandbox?: Sandbox;
  /** Every secret of the server and the config, for log and output redaction. */
  secrets: string[];
}

/**
 * The server a command talks to: `config.server`, or the embedded sandbox (logged in as its bot).
 *
 * @example
 * const { server, sandbox } = await resolveTarget(config);
 */
export async function resolveTarget(
  config: BotConfig,
  sandboxOptions: SandboxOptions = {},
): Promise<Target> {
  let sandbox: Sandbox | undefined;
  let server = config.server;
  if (!server) {
    // Imported only here: a bot with a server never loads the sandbox (start-up time, memory).
    const { startSandbox } = await import("../sandbox/server.js");
    sandbox = await startSandbox(sandboxOptions);
    server = { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey };
  }
  return {
    server,
    sandbox,
    secrets: [...serverSecrets(server), ...configSecrets(config), ...proxySecrets(server)],
  };
}

/** The passwords of the proxy URLs the bot may use (server.proxy, the proxy variables). */
function proxySecrets(server: ServerConfig): string[] {
  const env = process.env;
  const urls = [server.proxy, env.https_proxy, env.HTTPS_PROXY, env.http_proxy, env.HTTP_PROXY];
  return urls.flatMap((url) => {
    if (typeof url !== "string") return [];
    try {
      const password = decodeURIComponent(new URL(url).password);
      return password.length >= 4 ? [password, new URL(url).password] : [];
    } catch {
      return [];
    }
  });
}
