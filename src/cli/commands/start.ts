// `bot start`: load bot.config.yaml, connect (or start the embedded sandbox), run until stopped.
import { loadConfigFile } from "../../config/load.js";
import { resolvePlugins } from "../../config/plugins.js";
import { createLogger } from "../../log/logger.js";
import { createBot } from "../../runtime/bot.js";
import { startSandbox, type Sandbox } from "../../sandbox/server.js";
import type { Output } from "../output.js";

export interface StartOptions {
  config: string;
}

/** Runs the bot; resolves with the process exit code once it has stopped. */
export async function runStart(options: StartOptions, out: Output): Promise<number> {
  const config = await loadConfigFile(options.config);
  const log = createLogger(config.logging);
  const plugins = await resolvePlugins(config, options.config);

  let sandbox: Sandbox | undefined;
  let server = config.server;
  if (!server) {
    sandbox = await startSandbox({ port: config.sandbox.port });
    server = { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey };
    const human = sandbox.user("mia");
    log.info({ url: sandbox.url }, "no server configured: running the embedded sandbox");
    out.stderr(
      [
        "",
        `No server in ${options.config}, so topicbot started its embedded sandbox at ${sandbox.url}.`,
        `Talk to the bot as ${human.fullName}:`,
        `  email ${human.email}   API key ${human.apiKey}   password ${human.password}`,
        `  curl -u '${human.email}:${human.apiKey}' ${sandbox.url}/api/v1/messages \\`,
        `    -d type=channel -d to=general -d topic=hello --data-urlencode 'content=${config.prefix}ping'`,
        "",
      ].join("\n"),
    );
  }

  const bot = createBot({
    server,
    plugins,
    prefix: config.prefix,
    respondTo: config.respondTo,
    logger: log,
  });
  try {
    await bot.start();
  } catch (error) {
    await sandbox?.close();
    throw error;
  }
  log.info(
    {
      site: server.site,
      bot: bot.me.email,
      plugins: plugins.map((p) => p.plugin.name),
      commands: bot.commands().map((c) => c.name),
    },
    "ready",
  );
  try {
    await bot.done;
    return 0;
  } catch (error) {
    out.stderr(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await sandbox?.close();
    log.flush?.();
  }
}
