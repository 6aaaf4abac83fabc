// The schema of bot.config.yaml: one zod description, from which types, validation, the JSON Schema and docs come.
import { isTimeZone } from "../time/zoned.js";
import { z } from "zod";
import { DEFAULT_RATE_LIMIT } from "../commands/rate-limit.js";
import { schedulesConfig } from "../scheduler/config.js";
import { receiverConfig, webhooksConfig } from "../webhooks/config.js";
import { outgoingWebhookConfig } from "../webhooks/outgoing.js";

export { isTimeZone };

const site = z
  .url({ protocol: /^https?$/, error: "expected an http(s) URL such as https://chat.example.com" })
  // As for a zuliprc's site: a trailing `/`, `/api` or `/api/v1` names the same server.
  .transform((url) => url.replace(/\/+$/, "").replace(/\/api(\/v1)?$/, ""))
  .describe("Server root URL, e.g. `https://chat.example.com`.");

const proxySetting = z
  .union([
    z.url({
      protocol: /^https?$/,
      error: "expected a proxy URL such as http://proxy.internal:3128",
    }),
    z.literal(false),
  ])
  .describe(
    "HTTP(S) proxy for every request to the server, e.g. `http://proxy.internal:3128` (`http://user:password@...` when it wants credentials); `false` for none. Default: the `HTTPS_PROXY`/`HTTP_PROXY` variables (lower case too), except for hosts in `NO_PROXY`.",
  );

/** `server.tls` as written: file names, relative to the config file. */
export const tlsSection = z
  .strictObject({
    ca: z
      .string()
      .min(1)
      .optional()
      .describe(
        "PEM file of the certificate authority (or bundle) that signed the server's certificate: a private CA. Trusted in addition to Node's own.",
      ),
    insecure: z
      .boolean()
      .optional()
      .describe(
        "Skip verifying the server's certificate (tests only: anyone in between can read the key).",
      ),
    cert: z
      .string()
      .min(1)
      .optional()
      .describe("PEM file of the client certificate, for a server (or proxy) that requires one."),
    key: z
      .string()
      .min(1)
      .optional()
      .describe(
        "PEM file of the client certificate's private key (default: `cert`, if it holds the key).",
      ),
  })
  .describe("TLS to the server: a private CA, a client certificate.");

/** TLS settings read: PEM text, and the files it came from (for messages). */
export const tlsSettings = z.strictObject({
  ca: z.string().optional(),
  insecure: z.boolean().optional(),
  cert: z.string().optional(),
  key: z.string().optional(),
  files: z.record(z.string(), z.string()).optional(),
});

const longPollTimeoutSeconds = z
  .number()
  .min(10)
  .max(3_600)
  .describe(
    "How long a long poll (GET /events) may stay unanswered before it is sent again; default 90, or what the server recommends at registration. A proxy that cuts requests sooner (nginx: `proxy_read_timeout`, default 60 s) is recognised and logged.",
  );

/** Resolved connection settings, as the client takes them. */
export const serverConfig = z.strictObject({
  site,
  email: z.string().min(1).describe("The bot's API email."),
  apiKey: z.string().min(1).describe("The bot's API key."),
  proxy: proxySetting.optional(),
  tls: tlsSettings.optional(),
  longPollTimeoutSeconds: longPollTimeoutSeconds.optional(),
});

/** The `server` section as written: the three settings, or a zuliprc file that supplies them. */
export const serverSection = z
  .strictObject({
    site: site.optional(),
    email: z.string().min(1).describe("The bot's API email.").optional(),
    apiKey: z
      .string()
      .min(1)
      .describe("The bot's API key. Prefer `${ZULIP_API_KEY}` to writing it in the file.")
      .optional(),
    zuliprc: z
      .string()
      .min(1)
      .describe(
        "Path of a zuliprc file (INI, `[api]` section with `email`, `key`, `site`, and the Python client's `cert_bundle`, `insecure`, `client_cert`, `client_cert_key`), relative to this file. Keys given here override it.",
      )
      .optional(),
    proxy: proxySetting.optional(),
    tls: tlsSection.optional(),
    longPollTimeoutSeconds: longPollTimeoutSeconds.optional(),
  })
  .superRefine((server, ctx) => {
    if (server.zuliprc !== undefined) return;
    for (const key of ["site", "email", "apiKey"] as const) {
      if (server[key] === undefined)
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: "missing (give site, email and apiKey, or zuliprc: path/to/zuliprc)",
        });
    }
  })
  .describe(
    "Where the bot connects. Omitted: the `ZULIP_EMAIL`, `ZULIP_API_KEY` and `ZULIP_SITE` environment variables if set, else `bot start` runs the embedded sandbox.",
  );

const redisUrl = z
  .string()
  .regex(
    /^(rediss?|redis\+sentinel):\/\/[^\s]+$/,
    "expected a Redis URL such as redis://127.0.0.1:6379/0 or redis+sentinel://127.0.0.1:26379/mymaster/0",
  )
  .describe(
    "Redis URL, e.g. `redis://127.0.0.1:6379/0`, or a Sentinel set: `redis+sentinel://host:26379,host:26380/mymaster/0`.",
  );

/** A Sentinel set spelled out (the parts of a `redis+sentinel://` URL, as ioredis takes them). */
export const sentinelSet = z
  .strictObject({
    sentinels: z
      .array(
        z.union([
          z.string().regex(/^[^\s:]+:\d+$/, "expected host:port"),
          z.strictObject({ host: z.string().min(1), port: z.int().min(1).max(65_535).optional() }),
        ]),
      )
      .min(1)
      .describe("The sentinels: `host:port` or `{ host, port }` (port default 26379)."),
    name: z
      .string()
      .min(1)
      .optional()
      .describe("The primary's name the sentinels monitor (default `mymaster`)."),
    db: z.int().min(0).optional().describe("Database number (default 0)."),
    username: z.string().min(1).optional().describe("Redis user (ACL)."),
    password: z.string().min(1).optional().describe("Redis password."),
    sentinelPassword: z.string().min(1).optional().describe("The sentinels' own password."),
  })
  .describe(
    "A Redis Sentinel set: the primary is asked of the sentinels, and again after a failover.",
  );

/** The `cluster` section: several `bot start` processes sharing one Redis (docs/cluster.md). */
export const clusterConfig = z
  .strictObject({
    redis: z
      .union([redisUrl, sentinelSet])
      .optional()
      .describe(
        "The cluster's Redis: a URL (`redis://`, `redis+sentinel://`) or a Sentinel set; required unless `--cluster` gives it.",
      ),
    partitions: z
      .int()
      .min(1)
      .max(1_024)
      .optional()
      .describe("Partitions conversations are spread over (default 16; the same on every node)."),
    node: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe("This node's name in `bot cluster status` (default: host name and process ID)."),
  })
  .describe("Cluster mode: one leader reads the server's events, every node handles a share.");

/** One entry of `plugins`: a name, or a one-key map from the name to the plugin's settings. */
export const pluginEntry = z.union([
  z.string().min(1).describe("A built-in plugin's name, a relative path, or an npm package name."),
  z
    .record(z.string().min(1), z.unknown())
    .refine((m) => Object.keys(m).length === 1, {
      message: "a plugin entry with settings is a map with exactly one key, the plugin's name",
    })
    .describe("`{ <plugin>: { ...settings } }`: the plugin and its settings."),
]);

export const storageConfig = z
  .discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("memory").describe("`memory`: in process memory, gone when the bot stops."),
    }),
    z.strictObject({
      type: z
        .literal("file")
        .describe("`file`: one JSON file at `path`, replaced atomically on every write."),
      path: z.string().min(1).describe("The store file, relative to this file."),
      flushDelayMs: z
        .int()
        .min(0)
        .max(60_000)
        .optional()
        .describe("Writes within this many milliseconds are batched into one (default 100)."),
      fsync: z
        .boolean()
        .optional()
        .describe(
          "Fsync every delivery-journal record, so a power cut loses nothing either (default false: a process kill loses nothing).",
        ),
      onDamage: z
        .enum(["fail", "recover"])
        .optional()
        .describe(
          "A delivery journal or store file damaged so that delivery state is lost (a record that is not one, the watermark gone, entries missing, an empty stand-in): `fail` (default) stops the start with an error naming the file; `recover` starts from the safest point left, with a warning. `bot start --recover` sets it for one start.",
        ),
    }),
    z.strictObject({
      type: z
        .literal("redis")
        .describe("`redis`: one Redis key per entry, shared by every process on that Redis."),
      url: redisUrl,
      prefix: z
        .string()
        .min(1)
        .optional()
        .describe("Prefix of every key (default `topicbot:kv:`)."),
    }),
  ])
  .describe("Where plugins' key-value stores live.");

/** An IANA time zone name, checked against Intl. */
const timeZoneSetting = z
  .string()
  .refine(isTimeZone, {
    error: (issue) =>
      `unknown time zone ${JSON.stringify(issue.input)} (expected an IANA name such as Europe/Paris or UTC)`,
  })
  .optional();

export const rateLimitConfig = z
  .union([
    z.strictObject({
      commands: z.int().min(1).describe("Commands one user may run..."),
      perSeconds: z.number().positive().describe("...within this many seconds."),
    }),
    z.literal(false),
  ])
  .describe("Per-user command rate limit, or `false` for none.");

export const loggingConfig = z
  .strictObject({
    level: z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
      .optional()
      .describe("Lowest level written; default: the `LOG_LEVEL` variable, else `info`."),
    format: z
      .enum(["pretty", "json"])
      .optional()
      .describe("`json` lines for machines, `pretty` for humans; default: pretty on a terminal."),
  })
  .describe("Logging: pino JSON lines, API keys redacted.");

/** The `memory` section: how `bot start` has V8 size its heap (docs/reliability.md, "Memory under a burst"). */
export const memoryConfig = z
  .strictObject({
    youngGeneration: z
      .enum(["hold", "grow"])
      .default("hold")
      .describe(
        "`hold`: `bot start` keeps V8's young generation (where new objects live) at the size it reached during start-up, so a burst of commands does not double it (16 → 32 MiB on Node 20); `grow`: V8's own sizing. Only `bot start` applies it, never the library in another program.",
      ),
  })
  .describe("How `bot start` sizes the JavaScript heap.");

const timeLimit = z.union([z.int().min(1).max(86_400_000), z.literal(false)]);

export const handlersConfig = z
  .strictObject({
    timeoutMs: timeLimit
      .optional()
      .describe(
        "Longest a handler may run, in ms, or `false` for no limit (default 600000, 10 minutes). Past it `ctx.signal` aborts, its concurrency slot is freed and the sender is told.",
      ),
    plugins: z
      .record(z.string().min(1), timeLimit)
      .optional()
      .describe(
        "Time limits by plugin name, in ms (`false`: none); a handler's own `timeoutMs` still wins.",
      ),
    maxFailures: z
      .union([z.int().min(1).max(1_000), z.literal(false)])
      .optional()
      .describe(
        "Failures of one message's handler (throws, time limits, runs cut by a stop or a kill), across restarts, after which the message is quarantined (a dead letter, not run again; `bot check` lists them). Default 3; `false`: never.",
      ),
  })
  .describe("Handler time limits and the quarantine of messages whose handler keeps failing.");

/** The `record` section: a cassette of the bot's traffic (docs/testing.md). */
export const recordConfig = z
  .strictObject({
    path: z
      .string()
      .min(1)
      .describe(
        "The cassette file (JSON lines), relative to the config file; rotated files get `.1`, `.2`, ...",
      ),
    sanitize: z
      .boolean()
      .default(true)
      .describe(
        "Replace emails and names by stable aliases and scrub the API key (default true). `false` keeps them: such a cassette is a secret.",
      ),
    hashContent: z
      .boolean()
      .default(false)
      .describe(
        "Replace message content by its SHA-256, for a cassette that must not hold what people wrote (lockdown replays of commands need it off).",
      ),
    maxBytes: z
      .int()
      .min(4096)
      .max(2 ** 40)
      .default(64 * 1024 * 1024)
      .describe("A cassette file past this size is rotated (default 64 MiB)."),
    keep: z
      .int()
      .min(0)
      .max(100)
      .default(3)
      .describe("Rotated cassette files kept beside the current one (default 3)."),
  })
  .describe(
    "Record everything the bot exchanges with the server to a cassette, to replay in tests (`createTestBot({ cassette })`) or against the sandbox (`bot replay --diff`).",
  );

export const botConfig = z
  .strictObject({
    server: serverSection.optional(),
    sandbox: z
      .strictObject({
        port: z
          .int()
          .min(0)
          .max(65_535)
          .default(0)
          .describe("Port of the embedded sandbox; 0 picks a free one."),
      })
      .default({ port: 0 })
      .describe("The embedded sandbox `bot start` runs when no server is configured."),
    prefix: z
      .string()
      .max(8)
      .default("!")
      .describe('Command prefix in channels; "" for none (commands by mention or DM only).'),
    respondTo: z
      .enum(["addressed", "mentions", "all"])
      .default("addressed")
      .describe(
        "Which messages reach plugins: `addressed` (direct messages, @-mentions of the bot, the prefix), `mentions` (zulip_bots' rule: one-to-one direct messages and messages that start with a mention; group DMs only when they mention the bot) or `all` (every message the bot receives; commands still need the prefix or a mention).",
      ),
    channels: z
      .array(z.string().min(1).max(60))
      .default([])
      .describe("Channels the bot subscribes itself to on start (a new bot is in none)."),
    allPublicChannels: z
      .boolean()
      .default(false)
      .describe("Receive messages of every public channel, subscribed or not."),
    concurrency: z
      .int()
      .min(1)
      .max(1_000)
      .optional()
      .describe(
        "Conversations handled at the same time (messages within one conversation are always handled in order).",
      ),
    timeZone: timeZoneSetting.describe(
      "IANA time zone for times in commands and `schedule` (`tomorrow 9:00`); default: the sender's.",
    ),
    rateLimit: rateLimitConfig.default({ ...DEFAULT_RATE_LIMIT }),
    stopTimeoutMs: z
      .int()
      .min(0)
      .max(3_600_000)
      .optional()
      .describe(
        "On SIGTERM, how long running handlers get to finish before the bot stops anyway (default 10000). Keep systemd's `TimeoutStopSec` and Docker's `--stop-timeout` above it.",
      ),
    errorReply: z
      .union([z.string().min(1), z.literal(false)])
      .optional()
      .describe(
        "Reply sent when a plugin's handler throws, or `false` for none; default: a short apology.",
      ),
    logging: loggingConfig.default({}),
    memory: memoryConfig.default({ youngGeneration: "hold" }),
    storage: storageConfig.default({ type: "memory" }),
    handlers: handlersConfig.default({}),
    cluster: clusterConfig.optional(),
    plugins: z
      .array(pluginEntry)
      .default([])
      .describe("Plugins, in load order, each a name or a one-key map to its settings."),
    schedules: schedulesConfig.default([]),
    webhooks: webhooksConfig.default([]),
    http: receiverConfig.optional(),
    outgoingWebhook: outgoingWebhookConfig.optional(),
    record: recordConfig.optional(),
  })
  .describe("topicbot's bot.config.yaml");

/** Connection settings after resolving zuliprc and environment variables. */
export type ServerConfig = z.output<typeof serverConfig>;
export type StorageSettings = z.output<typeof storageConfig>;
export type RateLimitSettings = z.output<typeof rateLimitConfig>;
export type MemorySettings = z.output<typeof memoryConfig>;
export type RecordSettings = z.output<typeof recordConfig>;

/** A loaded configuration: defaults applied, `server` resolved (from the file, a zuliprc or the environment). */
export type BotConfig = Omit<z.output<typeof botConfig>, "server"> & {
  server?: ServerConfig;
  /** Where `server` came from, for `bot check`: the config file, a zuliprc path, or `environment`. */
  serverSource?: string;
};

/** The JSON Schema of bot.config.yaml (draft-07, which editors' YAML support reads), from the zod schema. */
export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(botConfig, {
    io: "input",
    target: "draft-7",
    // The refinement "site, email and apiKey, or zuliprc", in terms editors understand.
    override: (ctx) => {
      if (ctx.zodSchema === serverSection)
        ctx.jsonSchema.anyOf = [
          { required: ["zuliprc"] },
          { required: ["site", "email", "apiKey"] },
        ];
    },
  }) as Record<string, unknown>;
  return { ...schema, title: "topicbot bot.config.yaml" };
}
