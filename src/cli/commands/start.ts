// `bot start`: load bot.config.yaml, connect (or start the embedded sandbox), subscribe, run until stopped.
import { setTimeout as sleep } from "node:timers/promises";
import { dirname, resolve } from "node:path";
import type { OwnUser } from "../../api/users.js";
import { createClient, type ApiClient } from "../../client/client.js";
import { CertificateError, NetworkError } from "../../client/errors.js";
import { loadConfigFile } from "../../config/load.js";
import type { RecordSettings } from "../../config/schema.js";
import { resolvePlugins } from "../../config/plugins.js";
import { createLogger } from "../../log/logger.js";
import { createBotMetrics, observeCalls } from "../../metrics/bot.js";
import { createBot } from "../../bot/bot.js";
import { openDeliveryStore } from "../../state/delivery/open.js";
import { createStore } from "../../state/key-value/create.js";
import { createMemoryStore } from "../../state/key-value/store.js";
import { loggedStorageHealth, UnsavedStorageError } from "../../state/health.js";
import { compileCacheReport } from "../compile-cache.js";
import { applyMemoryPolicy } from "../memory-policy.js";
import type { Output } from "../output.js";
import { clusterRedis, clusterStorage } from "../cluster-storage.js";
import { subscribeToChannels } from "../subscribe.js";
import { resolveTarget } from "../target.js";
import { checkStorageWritable, storageOpenError } from "../storage-preflight.js";
import { holdSighup } from "../sighup.js";
import { configReloader } from "../reload.js";
import { ownPackage } from "../../own-files.js";
import { zuliprcModeWarning } from "../zuliprc-mode.js";

export interface StartOptions {
  config: string;
  /** Redis URL: run as a cluster node (overrides `cluster.redis` of the config). */
  cluster?: string;
  /** `--recover`: a damaged journal or store file is recovered with a warning (`storage.onDamage: recover`). */
  recover?: boolean;
  /** Overrides the config's `stopTimeoutMs` (`--stop-timeout`). */
  stopTimeout?: number;
  /** Overrides the config's `server.longPollTimeoutSeconds` (`--long-poll-timeout`). */
  longPollTimeout?: number;
  /** `bot record`: records a cassette (overrides the config's `record`; `path` as given, from the working directory). */
  record?: RecordSettings;
}

/** Seconds between attempts to reach an unreachable server: doubling, at most a minute. */
const RETRY_SECONDS = [2, 4, 8, 16, 32, 60];

/** What the probe of `waitForServer` learned: the bot's own profile when GET /users/me succeeded. */
interface Reached {
  profile: OwnUser | undefined;
}

/** Exit code of `bot start` for a setting to change (a certificate refused): as for a config error. */
const EXIT_SETTINGS = 2;

/**
 * Waits until the server answers (any HTTP answer counts: credentials are checked later), saying
 * on standard error which setting points where and counting down to each retry. Resolves false
 * when stopped by SIGINT or SIGTERM, during an attempt as well as between attempts (an attempt can
 * hang for its whole timeout on a host that accepts connections and never answers). The probe is
 * GET /users/me: when it succeeds, its answer is the bot's profile, handed on to the bot so that
 * its start does not ask again (one round trip and one response parse less, issue 17 start-up).
 */
async function waitForServer(
  client: ApiClient,
  source: string | undefined,
  out: Output,
): Promise<Reached | false | CertificateError> {
  const site = client.site;
  const stopped = new AbortController();
  const stop = (): void => stopped.abort();
  process.once("SIGINT", stop).once("SIGTERM", stop);
  try {
    // The bot's own client, one try per attempt: no second connection pool just to probe.
    for (let attempt = 0; ; attempt++) {
      try {
        const profile = await client.users.me(undefined, { retry: false, signal: stopped.signal });
        if (attempt > 0) out.stderr(`Reached ${site}.`);
        return { profile };
      } catch (error) {
        if (stopped.signal.aborted) return false;
        // A certificate refused stays refused: no retry, the message says what to set.
        if (error instanceof CertificateError) return error;
        // Refused (bad credentials, ...): the server is there; the bot's start says what is wrong.
        if (!(error instanceof NetworkError)) return { profile: undefined };
        const seconds = RETRY_SECONDS[Math.min(attempt, RETRY_SECONDS.length - 1)]!;
        if (attempt === 0)
          out.stderr(
            `Cannot reach server.site ${site} (from ${source ?? "the config"}): ${error.message}\n` +
              "Check that the URL is right (scheme, host and port), that the server is up, and that this machine can reach it (proxy, firewall, VPN).",
          );
        out.stderr(`  retrying in ${seconds} s (attempt ${attempt + 2}; Ctrl-C to stop)`);
        try {
          await sleep(seconds * 1000, undefined, { signal: stopped.signal });
        } catch {
          return false;
        }
      }
    }
  } finally {
    process.off("SIGINT", stop).off("SIGTERM", stop);
  }
}

/** Runs the bot; resolves with the process exit code once it has stopped. */
export async function runStart(options: StartOptions, out: Output): Promise<number> {
  const hup = holdSighup((line) => out.stderr(line));
  try {
    return await runStartHeld(options, out, hup);
  } finally {
    hup.release();
  }
}

async function runStartHeld(
  options: StartOptions,
  out: Output,
  hup: ReturnType<typeof holdSighup>,
): Promise<number> {
  const config = await loadConfigFile(options.config);
  const plugins = await resolvePlugins(config, options.config);

  const { server, sandbox, secrets } = await resolveTarget(config, { port: config.sandbox.port });
  const log = createLogger({
    ...config.logging,
    secrets,
  });
  hup.use(log);
  if (!sandbox) log.info({ site: server.site, from: config.serverSource }, "connecting");
  const exposed = config.serverSource && zuliprcModeWarning(config.serverSource);
  if (exposed) log.warn({ zuliprc: config.serverSource }, exposed);

  const metrics = createBotMetrics();
  const health = loggedStorageHealth(log, (what) => metrics.storageWriteFailed(what));
  const baseDir = dirname(resolve(options.config));
  const clusterUrl = clusterRedis(options.cluster, config.cluster, options.config);
  const configured = clusterStorage(config.storage, clusterUrl, options.config);
  const storageConfig =
    options.recover && configured.type === "file"
      ? { ...configured, onDamage: "recover" as const }
      : configured;
  const warn = (fields: Record<string, unknown>, message: string): void =>
    log.warn(fields, message);
  // A storage start cannot use is a config problem (exit 2), worded as `bot check` words it.
  const asConfigError = (error: unknown): never => {
    throw storageConfig.type === "file" ? storageOpenError(error, options.config) : error;
  };
  await checkStorageWritable(storageConfig, options.config, baseDir);
  const storage = await createStore(storageConfig, {
    baseDir,
    onError: (error) => health.failed(error, "plugins"),
    onWritten: () => health.ok("plugins"),
    warn,
  }).catch(asConfigError);
  // Cluster nodes pace their calls from one rate-limit budget per bot account, kept in Redis.
  const pacing = clusterUrl
    ? (await import("../../cluster/pacing.js")).clusterPacing(clusterUrl, server.email, log)
    : undefined;
  const longPollTimeoutSeconds = options.longPollTimeout ?? server.longPollTimeoutSeconds;
  const recording = options.record ?? config.record;
  // The recorder is imported only when recording (start-up time, issue 17).
  const recorder = recording
    ? new (await import("../../record/recorder.js")).Recorder({
        ...recording,
        path: resolve(options.record ? process.cwd() : baseDir, recording.path),
        site: server.site,
        secrets: [server.apiKey],
        version: ownPackage().version,
        onError: (error) =>
          log.error({ err: error }, "cannot write the cassette: the recording stopped"),
      })
    : undefined;
  if (recorder && recording) log.info({ cassette: recording.path }, "recording a cassette");
  const client = createClient({
    ...server,
    ...(recorder && { wrapTransport: (transport) => recorder.wrap(transport) }),
    ...(longPollTimeoutSeconds !== undefined && { longPollTimeoutSeconds }),
    onCall: observeCalls(metrics),
    pacing: pacing && { budget: pacing.budget },
  });
  const register = config.allPublicChannels ? { all_public_streams: true } : undefined;
  // The cluster code (and ioredis) is imported only in cluster mode.
  const node = clusterUrl
    ? new (await import("../../cluster/node.js")).ClusterNode({
        url: clusterUrl,
        api: client,
        register,
        partitions: config.cluster?.partitions,
        node: config.cluster?.node,
        log,
      })
    : undefined;
  node?.observe(metrics.registry);
  // A cluster node's replies are journaled in Redis, fenced by its partition locks.
  // The embedded sandbox is new on every start and numbers its messages from 1 again: the last
  // run's delivery journal would have the bot skip them as handled already. Its journal is in memory.
  const delivery =
    node?.delivery ??
    (await (
      sandbox
        ? openDeliveryStore({ type: "memory" }, createMemoryStore())
        : openDeliveryStore(storageConfig, storage, { baseDir, warn })
    ).catch(async (error: unknown) => {
      await storage.close().catch(() => undefined);
      return asConfigError(error);
    }));
  const cleanUp = async (): Promise<void> => {
    await node?.stop().catch((error: unknown) => log.error({ err: error }, "cluster stop"));
    await pacing?.close();
    await delivery.close().catch(() => undefined);
    await storage.close().catch(() => undefined);
    await client.close();
    await sandbox?.close();
  };

  // Before the bot is built, so that it takes its identity from the probe's answer.
  const reached = sandbox
    ? { profile: undefined }
    : await waitForServer(client, config.serverSource, out);
  if (reached instanceof CertificateError) {
    out.stderr(
      `Cannot connect to server.site ${server.site} (from ${config.serverSource ?? "the config"}): ${reached.message}`,
    );
    log.error({ err: reached }, "cannot connect: certificate refused");
    await cleanUp();
    return EXIT_SETTINGS;
  }
  if (!reached) {
    await cleanUp();
    return 1;
  }

  const bot = createBot({
    client,
    ownProfile: reached.profile,
    plugins,
    events: node,
    attach: node?.attach,
    cluster: node?.duties(),
    prefix: config.prefix,
    respondTo: config.respondTo,
    errorReply: config.errorReply,
    timeZone: config.timeZone,
    rateLimit: config.rateLimit,
    storage,
    delivery,
    storageHealth: health,
    logger: log,
    concurrency: config.concurrency,
    handlers: config.handlers,
    stopTimeoutMs: options.stopTimeout ?? config.stopTimeoutMs,
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
    // Once started, so start-up itself runs with V8's own young-generation sizing (held at 8 MiB
    // from the config onwards, its scavenges cost ~30 ms of CPU more before the first answer).
    applyMemoryPolicy(config.memory, log);
  } catch (error) {
    await cleanUp();
    throw error;
  }
  // After the plugins' setup, so a setup error is the last thing printed, not buried above.
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
        "and read its answer (pong), the newest message of that topic:",
        `  curl -u '${human.email}:${human.apiKey}' -G ${sandbox.url}/api/v1/messages \\`,
        `    -d anchor=newest -d num_before=1 -d num_after=0 -d apply_markdown=false \\`,
        `    --data-urlencode 'narrow=[{"operator":"channel","operand":"general"},{"operator":"topic","operand":"hello"}]'`,
        "",
      ].join("\n"),
    );
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
  // From now on a SIGHUP reloads the config (plugins, their settings, schedules, the log level).
  const reloader = configReloader(options.config, config, bot, log);
  hup.reloadWith(() => reloader.reload());
  const compileCache = compileCacheReport();
  if (compileCache) log.debug({ compileCache }, "compile cache");
  try {
    await bot.done;
    return 0;
  } catch (error) {
    out.stderr(`error: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof CertificateError) return EXIT_SETTINGS;
    return error instanceof UnsavedStorageError ? UnsavedStorageError.EXIT_CODE : 1;
  } finally {
    await cleanUp();
    log.flush?.();
  }
}
