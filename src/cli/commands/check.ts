// `bot check`: validate the config and plugin settings, connect, and say who the bot is and what it will hear.
import { capabilitiesAt } from "../../context/capabilities.js";
import { ApiError, CertificateError, NetworkError } from "../../client/errors.js";
import { createClient, type ApiClient } from "../../client/client.js";
import { loadConfigFile } from "../../config/load.js";
import { resolvePlugins } from "../../config/plugins.js";
import type { BotConfig, ServerConfig } from "../../config/schema.js";
import { proxyFor, redactProxy } from "../../client/connection.js";
import type { Registration } from "../../api/events.js";
import type { EventSource } from "../../inbound/event-queue.js";
import { redactSecrets, silentLogger } from "../../log/logger.js";
import { createBot } from "../../bot/bot.js";
import type { Output } from "../output.js";
import { describeFollow, Follows, type FollowNames } from "../../context/follows.js";
import { createStore } from "../../state/key-value/create.js";
import { dirname, resolve } from "node:path";
import { resolveTarget } from "../target.js";
import { clusterRedis, clusterStorage } from "../cluster-storage.js";
import { readDeadLetters } from "../../state/quarantine.js";
import { RUNTIME_NAMESPACE } from "../../state/delivery/open.js";
import {
  checkStorageWritable,
  existingJournal,
  READ_ONLY_JOURNAL,
  storageOpenError,
} from "../storage-preflight.js";
import { FileDeliveryStore } from "../../state/delivery/file.js";
import { zuliprcModeWarning } from "../zuliprc-mode.js";

export interface CheckOptions {
  config: string;
}

/**
 * How `bot check` shows a secret: never a character of it, only that it is set and how long it is.
 * Here rather than in ../output.ts, which `bot start` loads: a module only `check` uses keeps
 * output.ts in the CLI's own file, one file less to load on every start (issue 17, start-up).
 */
export function maskSecret(secret: string): string {
  return `[redacted] (${secret.length} characters)`;
}

const ROLE_NAMES: Record<number, string> = {
  100: "owner",
  200: "administrator",
  300: "moderator",
  400: "member",
  600: "guest",
};

function storageLine(config: BotConfig): string {
  if (config.storage.type === "file")
    return `file ${config.storage.path} (relative to the config file)`;
  // The URL is left out: it can hold a password.
  if (config.storage.type === "redis") return "redis (storage.url)";
  return config.cluster
    ? "redis (the cluster's, cluster.redis)"
    : "memory (forgotten when the bot stops)";
}

/** How the bot reaches the server: through which proxy (password hidden), with which TLS settings. */
function connectionLine(server: ServerConfig): string {
  const proxy = proxyFor(new URL(server.site).origin, server);
  const parts = [proxy ? `through proxy ${redactProxy(proxy)}` : "direct (no proxy)"];
  const files = server.tls?.files ?? {};
  if (files.ca) parts.push(`CA ${files.ca}`);
  if (files.cert) parts.push(`client certificate ${files.cert}`);
  if (server.tls?.insecure) parts.push("certificate NOT verified (tls.insecure)");
  return parts.join(", ");
}

/**
 * What `bot start` does with the storage before it connects, done here the same way: the files
 * writable, the store and (when there is one) the delivery journal readable in this version's
 * format. The ConfigError `start` would fail with (exit 2), or undefined.
 */
async function checkStorage(config: BotConfig, configPath: string): Promise<Error | undefined> {
  const settings = clusterStorage(
    config.storage,
    clusterRedis(undefined, config.cluster, configPath),
    configPath,
  );
  if (settings.type !== "file") return undefined;
  const baseDir = dirname(resolve(configPath));
  try {
    await checkStorageWritable(settings, configPath, baseDir);
    const store = await createStore(settings, { baseDir });
    await store.close();
    const journal = await existingJournal(settings, baseDir);
    // Read only: the bot may be running and appending to it right now.
    if (journal)
      await (await FileDeliveryStore.open({ path: journal, fs: READ_ONLY_JOURNAL })).close();
    return undefined;
  } catch (error) {
    return storageOpenError(error, configPath);
  }
}

/**
 * The conversations plugins follow (`ctx.follow`), read from the configured storage: one line
 * each, or one line saying there are none.
 */
async function followLines(
  config: BotConfig,
  configPath: string,
  client: ApiClient,
): Promise<string[]> {
  let store;
  try {
    // Where the bot keeps them: in cluster mode, the cluster's Redis.
    const storage = clusterStorage(
      config.storage,
      // Without `cluster.redis` (given by `bot start --cluster`) the cluster's Redis is unknown here.
      config.cluster?.redis === undefined
        ? undefined
        : clusterRedis(undefined, config.cluster, configPath),
      configPath,
    );
    if (storage.type === "memory") return ["none kept (memory storage)"];
    store = await createStore(storage, { baseDir: dirname(resolve(configPath)) });
  } catch (error) {
    return [`could not read them: ${error instanceof Error ? error.message : String(error)}`];
  }
  try {
    const follows = await new Follows(store.namespace("topicbot:follows")).list();
    if (follows.length === 0) return ["none"];
    const [{ streams }, { members }] = await Promise.all([
      client.channels.list({}),
      client.users.list({}),
    ]);
    const names: FollowNames = {
      channel: (id) => streams.find((s) => s.stream_id === id)?.name,
      user: (id) => members.find((m) => m.user_id === id)?.full_name,
    };
    return follows.map((f) => describeFollow(f, names, Date.now()));
  } finally {
    await store.close();
  }
}

/**
 * The dead letters (messages quarantined because their handler kept failing), read from the
 * configured storage: one line each, or one line saying there are none.
 */
async function deadLetterLines(config: BotConfig, configPath: string): Promise<string[]> {
  let store;
  try {
    const storage = clusterStorage(
      config.storage,
      clusterRedis(undefined, config.cluster, configPath),
      configPath,
    );
    if (storage.type === "memory") return ["none kept (memory storage)"];
    store = await createStore(storage, { baseDir: dirname(resolve(configPath)) });
  } catch (error) {
    return [`could not read them: ${error instanceof Error ? error.message : String(error)}`];
  }
  try {
    const letters = await readDeadLetters(store.namespace(RUNTIME_NAMESPACE));
    if (letters.length === 0) return ["none"];
    return letters.map(
      (l) =>
        `message ${l.messageId}: plugin ${l.plugin}, ${l.handler}, failed ${l.failures} times (last: ${l.reason}); quarantined ${new Date(l.at).toISOString()}, not run again`,
    );
  } finally {
    await store.close();
  }
}

/** How long `bot check` waits for the storage to list follows. */
const FOLLOWS_WAIT_MS = 10_000;

/** Registers a throwaway queue to learn the server's version and feature level, then deletes it. */
async function probeServer(client: ApiClient): Promise<Registration> {
  const registration = await client.events.register({
    event_types: ["heartbeat"],
    fetch_event_types: ["realm"],
  });
  if (registration.queue_id)
    await client.events.deleteQueue({ queue_id: registration.queue_id }).catch(() => undefined);
  return registration;
}

/**
 * Runs the checks and prints a report; resolves with the exit code (0 all good, 1 the server
 * refused). Config errors are thrown as ConfigError (exit code 2 in `main`). The API key is only
 * ever shown masked, and every line is scrubbed of it.
 */
export async function runCheck(options: CheckOptions, rawOut: Output): Promise<number> {
  const config = await loadConfigFile(options.config);
  const plugins = await resolvePlugins(config, options.config);

  const { server, sandbox, secrets } = await resolveTarget(config);
  const out: Output = {
    stdout: (line) => rawOut.stdout(redactSecrets(line, secrets)),
    stderr: (line) => rawOut.stderr(redactSecrets(line, secrets)),
  };
  const row = (label: string, value: string): void => out.stdout(`${label.padEnd(12)}${value}`);

  out.stdout(`Config      ${options.config}: valid (${plugins.length} plugin(s), settings valid)`);
  row(
    "Server",
    sandbox
      ? `${server.site} (no server configured: the embedded sandbox \`bot start\` would run)`
      : `${server.site} (from ${config.serverSource})`,
  );
  row("Bot email", server.email);
  row("API key", maskSecret(server.apiKey));
  row("Connection", connectionLine(server));
  const exposed = config.serverSource && zuliprcModeWarning(config.serverSource);
  if (exposed) out.stderr(`warning: ${exposed}`);

  const storageProblem = await checkStorage(config, options.config);
  if (storageProblem) {
    await sandbox?.close();
    out.stderr(`error: ${storageProblem.message}`);
    return 2;
  }

  const client = createClient({ ...server, retry: { maxAttempts: 2 } });
  let registration: Registration;
  const noEvents: EventSource = { start: async () => registration, stop: async () => undefined };
  const bot = createBot({
    client,
    plugins,
    prefix: config.prefix,
    respondTo: config.respondTo,
    errorReply: config.errorReply,
    logger: silentLogger(),
    events: noEvents,
    handleSignals: false,
    schedules: config.schedules,
    webhooks: config.webhooks,
    http: config.http,
    outgoingWebhook: config.outgoingWebhook,
    listen: false,
  });
  try {
    const me = await client.users.me();
    registration = await probeServer(client);
    row(
      "Bot",
      `${me.full_name} <${me.email}>, user ${me.user_id}, ${ROLE_NAMES[me.role as number] ?? `role ${me.role}`}${me.is_bot ? ", a bot account" : ", NOT a bot account"}`,
    );
    row(
      "Version",
      `${registration.zulip_version ?? "unknown version"}, feature level ${registration.zulip_feature_level}`,
    );
  } catch (error) {
    await client.close();
    await sandbox?.close();
    if (error instanceof ApiError && (error.code === "INVALID_API_KEY" || error.status === 401)) {
      out.stderr(
        `error: ${server.site} refused the credentials (${error.code}); check server.email and server.apiKey`,
      );
      return 1;
    }
    out.stderr(
      `error: could not connect to ${server.site}: ${error instanceof Error ? error.message : String(error)}`,
    );
    // As documented (docs/deployment.md): 2 a setting to change, 3 unreachable, 1 refused.
    if (error instanceof CertificateError) return 2;
    return error instanceof NetworkError ? 3 : 1;
  }
  try {
    // Connected; what fails from here is a plugin's setup, not the server.
    await bot.start();
  } catch (error) {
    await client.close();
    await sandbox?.close();
    out.stderr(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }

  const channels =
    config.channels.length > 0 ? `${config.channels.join(", ")} (subscribed on start)` : "none";
  row("Channels", channels);
  row("", `all public channels: ${config.allPublicChannels ? "yes" : "no"}`);
  row("", "direct messages: yes");
  row(
    "Answers",
    config.respondTo === "all"
      ? `every message it receives; commands with the prefix "${config.prefix}", an @-mention or in a DM`
      : `direct messages, @-mentions, and messages starting with "${config.prefix}"`,
  );
  row("Storage", storageLine(config));
  // Redis storage waits for an unreachable Redis (it never gives a command up): bound the wait here.
  let timer: NodeJS.Timeout | undefined;
  const follows = await Promise.race([
    followLines(config, options.config, client),
    new Promise<string[]>((resolve) => {
      timer = setTimeout(
        () =>
          resolve([
            `could not read them: storage did not answer within ${FOLLOWS_WAIT_MS / 1000} s`,
          ]),
        FOLLOWS_WAIT_MS,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  for (const [i, line] of follows.entries()) row(i === 0 ? "Follows" : "", line);
  const dead = await deadLetterLines(config, options.config);
  for (const [i, line] of dead.entries()) row(i === 0 ? "Quarantine" : "", line);
  const capabilities = capabilitiesAt(registration.zulip_feature_level);
  const missing = capabilities.filter((c) => !c.available);
  row(
    "Actions",
    missing.length === 0
      ? `all ${capabilities.length} available at feature level ${registration.zulip_feature_level}`
      : `unavailable here: ${missing.map((c) => `${c.name} (needs level ${c.level})`).join(", ")}`,
  );
  const commands = bot.commands();
  if (plugins.length === 0) row("Plugins", "none");
  for (const [i, { plugin }] of plugins.entries()) {
    const own = commands.filter((c) => c.plugin === plugin.name).map((c) => config.prefix + c.name);
    row(
      i === 0 ? "Plugins" : "",
      `${plugin.name}: ${own.length > 0 ? own.join(", ") : "(no commands)"}`,
    );
  }
  const jobs = bot.scheduler.jobs().map((j) => `${j.name} (${j.expression})`);
  row("Schedules", jobs.length > 0 ? jobs.join(", ") : "none");
  const routes = bot.webhookRoutes();
  const http = { host: "127.0.0.1", port: 8080, ...config.http };
  row(
    "Webhooks",
    routes.length > 0 || config.http
      ? `${routes.length > 0 ? routes.join(", ") : "no routes"} on http://${http.host}:${http.port}, with /healthz${http.metrics === false ? "" : " and /metrics"}`
      : "none",
  );
  await bot.stop();
  await client.close();
  await sandbox?.close();
  out.stdout("All good.");
  return 0;
}
