// `bot start`: load bot.config.yaml, connect (or start the embedded sandbox), subscribe, run until stopped.
import { dirname, resolve } from "node:path";
import { createClient } from "../../client/client.js";
import { loadConfigFile } from "../../config/load.js";
import { resolvePlugins } from "../../config/plugins.js";
import { createLogger } from "../../log/logger.js";
import { createBotMetrics, observeCalls } from "../../metrics/bot.js";
import { createBot } from "../../runtime/bot.js";
import { createStore } from "../../storage/create.js";
import type { Output } from "../output.js";
import { ClusterNode } from "../../cluster/node.js";
import { ConfigError } from "../../config/errors.js";
import type { StorageSettings } from "../../config/schema.js";
import { subscribeToChannels } from "../subscribe.js";
import { resolveTarget } from "../target.js";

export interface StartOptions {
  config: string;
  /** Redis URL: run as a cluster node (overrides `cluster.redis` of the config). */
  cluster?: string;
}

/** Runs the bot; resolves with the process exit code once it has stopped. */
export async function runStart(options: StartOptions, out: Output): Promise<number> {
  const config = await loadConfigFile(options.config);
  const plugins = await resolvePlugins(config, options.config);

  const { server, sandbox, secrets } = await resolveTarget(config, { port: config.sandbox.port });
  const log = createLogger({
    ...config.logging,
    secrets,
  });
  if (sandbox) {
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
  } else {
    log.info({ site: server.site, from: config.serverSource }, "connecting");
  }

  const clusterUrl = options.cluster ?? config.cluster?.redis;
  const storageConfig = clusterStorage(config.storage, clusterUrl, options.config);
  const storage = await createStore(storageConfig, {
    baseDir: dirname(resolve(options.config)),
    onError: (error) => log.error({ err: error }, "storage: a write failed; it will be retried"),
  });
  const metrics = createBotMetrics();
  const client = createClient({ ...server, onCall: observeCalls(metrics) });
  const register = config.allPublicChannels ? { all_public_streams: true } : undefined;
  const node = clusterUrl
    ? new ClusterNode({
        url: clusterUrl,
        api: client,
        register,
        partitions: config.cluster?.partitions,
        node: config.cluster?.node,
        log,
      })
    : undefined;
  node?.observe(metrics.registry);
  const cleanUp = async (): Promise<void> => {
    await node?.stop().catch((error: unknown) => log.error({ err: error }, "cluster stop"));
    await storage.close().catch((error: unknown) => log.error({ err: error }, "storage close"));
    await client.close();
    await sandbox?.close();
  };

  const bot = createBot({
    client,
    plugins: node ? [node.plugin(), ...plugins] : plugins,
    events: node,
    attach: node?.attach,
    cluster: node?.duties(),
    prefix: config.prefix,
    respondTo: config.respondTo,
    errorReply: config.errorReply,
    timeZone: config.timezone,
    rateLimit: config.rateLimit,
    storage,
    logger: log,
    concurrency: config.concurrency,
    register,
    metrics,
    schedules: config.schedules,
    webhooks: config.webhooks,
    http: config.http,
    outgoingWebhook: config.outgoingWebhook,
  });
  try {
    await subscribeToChannels(client, config.channels, log);
    await bot.start();
  } catch (error) {
    await cleanUp();
    throw error;
  }
  log.info(
    {
      site: server.site,
      bot: bot.me.email,
      channels: config.channels,
      allPublicChannels: config.allPublicChannels,
      storage: storageConfig.type,
      cluster: node
        ? { node: node.name, role: node.role, partitions: node.partitionCount }
        : undefined,
      plugins: plugins.map((p) => p.plugin.name),
      commands: bot.commands().map((c) => c.name),
      schedules: bot.scheduler.jobs().map((j) => j.name),
      webhooks: bot.webhookUrl ? { url: bot.webhookUrl, routes: bot.webhookRoutes() } : undefined,
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
    await cleanUp();
    log.flush?.();
  }
}

/** Cluster mode keeps storage in Redis: the default (memory) becomes the cluster's Redis; a file is refused. */
function clusterStorage(
  storage: StorageSettings,
  clusterUrl: string | undefined,
  file: string,
): StorageSettings {
  if (!clusterUrl || storage.type === "redis") return storage;
  if (storage.type === "memory") return { type: "redis", url: clusterUrl };
  throw new ConfigError(
    file,
    "storage",
    "cluster mode shares storage through Redis; use storage: { type: redis, url: ... } or leave storage out",
  );
}
