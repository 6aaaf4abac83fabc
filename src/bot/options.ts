// What createBot takes: the client or server, plugins, the prefix and addressing, storage and delivery, limits and clocks.
import type { ApiClient, ClientOptions } from "../client/client.js";
import type { HandlerOptions } from "../dispatch/handler-watch.js";
import type { BackoffOptions } from "../client/backoff.js";
import type { DeadlinePolicy } from "../client/retry.js";
import type { AnyEvent, RegisterParams } from "../api/events.js";
import type { Message } from "../api/messages.js";
import type { OwnUser } from "../api/users.js";
import type { EventSource } from "../inbound/event-queue.js";
import type { CatchUpWindow } from "../inbound/catch-up.js";
import type { Logger } from "../log/logger.js";
import type { StorageHealth } from "../state/health.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import type { DeliveryStore } from "../state/delivery/store.js";
import type { RateLimit } from "../commands/guards.js";
import type { LoopGuardOptions } from "../outbound/loop-guard.js";
import type { RespondTo } from "../dispatch/gate.js";
import type { BotObserver } from "../model/observer.js";
import type { PluginInstance, Plugin } from "./plugin.js";
import type { ServiceOptions } from "./services.js";
import type { ScheduleEntry } from "../scheduler/config.js";

export interface BotOptions extends ServiceOptions {
  /** A ready client; or give `server` and one is created (and closed on stop). */
  client?: ApiClient;
  /**
   * The bot's own profile, when the caller has just read it from GET /users/me with `client`
   * (`bot start` does, to check that the server answers): `start()` takes the bot's identity
   * from it instead of asking the server a second time. Unset, `start()` asks.
   */
  ownProfile?: Pick<OwnUser, "user_id" | "email" | "full_name">;
  server?: ClientOptions;
  plugins?: (Plugin | PluginInstance)[];
  /** Command prefix in channels. Default `!`. */
  prefix?: string;
  /**
   * Which messages reach plugins. `addressed` (default): DMs, leading mentions and the prefix;
   * `mentions`: zulip_bots' rule, one-to-one DMs and messages that start with a mention (group
   * DMs only when they mention the bot; no prefix); `all`: every message.
   */
  respondTo?: RespondTo;
  /**
   * Reply sent when a handler throws; false for none. Commands send it for any error; `hear` and
   * `filter` handlers for errors other than an action the server refused (those are only logged).
   * Each handler may choose with its own `errorReply` option.
   */
  errorReply?: string | false;
  logger?: Logger;
  /** Where events come from; defaults to an EventQueue on the client. */
  events?: EventSource;
  /** Extra registration parameters (`narrow`, `all_public_streams`, ...). */
  register?: RegisterParams;
  /** Stop on SIGINT and SIGTERM. Default true. */
  handleSignals?: boolean;
  /** The key-value store plugins get namespaces of (`createStore(config.storage)`), sessions too; default: memory. */
  storage?: KeyValueStore;
  /** IANA time zone for human times (`tomorrow 9:00`) when the sender's profile has none. Default: the system's. */
  timeZone?: string;
  /** Per-user command limit, e.g. `{ commands: 5, perSeconds: 10 }`; false for none. Default `DEFAULT_RATE_LIMIT`, 10 per 10 s, as in bot.config.yaml. */
  rateLimit?: RateLimit | false;
  /** Answer addressed messages that match no command with "did you mean". Default true. */
  unknownCommandReply?: boolean;
  /** The current time in epoch milliseconds (tests pass a fixed clock). Default `Date.now`. */
  now?: () => number;
  /**
   * Conversations handled at the same time; messages of one conversation run in order (unless a
   * handler's `overlap` strategy says otherwise). Default 8.
   */
  concurrency?: number;
  /**
   * Messages waiting for their conversation, plus messages held by handlers' `overlap`
   * strategies, before polling pauses (bounded memory). Default 100.
   */
  maxQueued?: number;
  /** How far catch-up after a lost queue or a restart reaches; false: no catch-up. Default 5000 messages, 24 h. */
  catchUpWindow?: CatchUpWindow | false;
  /** How long `stop()` waits for running handlers before it stops anyway, in ms. Default 10 s. */
  stopTimeoutMs?: number;
  /** The long-poll loop: backoff between failed polls, the hung-poll watchdog, re-registering after long loss. */
  eventLoop?: {
    backoff?: BackoffOptions;
    watchdogMs?: number;
    reregisterAfterMs?: number;
    /** How long a poll that brought only the bot's own edits waits while it streams (`EventQueueOptions`). */
    ownEchoHoldMs?: number;
  };
  /**
   * Sending a reply through 5xx answers, lost connections and rate limits: retried with capped
   * backoff until `deadlineMs` (default 5 minutes) after the first attempt; `attempts` optionally
   * caps the tries too. Only a refusal (a 4xx with a `code`) reaches the handler at once.
   */
  sendRetry?: { attempts?: number } & Partial<DeadlinePolicy>;
  /** Per plugin and conversation send limit; over it the plugin is paused there. false: off. */
  loopGuard?: Partial<LoopGuardOptions> | false;
  /** Incoming messages whose replies are remembered (persisted), so none is answered twice. Default 500. */
  replyMemory?: number;
  /**
   * Where the watermark and the reply journal live (`openDeliveryStore(config.storage, storage)`
   * picks it from the storage config; `bot start` does). Default: keys in `storage`.
   */
  delivery?: DeliveryStore;
  /** Counts and reports storage write failures (`/healthz`, metrics); default: the bot's own. */
  storageHealth?: StorageHealth;
  /**
   * Handler time limits (default 10 minutes, per plugin, per handler with `timeoutMs`) and the
   * quarantine of messages whose handler failed `maxFailures` times (default 3), across restarts.
   */
  handlers?: HandlerOptions;
  /** Told of each event received and of each message no handler ran for, with why (`bot dev --web`). */
  observer?: BotObserver;
  /**
   * Cluster mode (src/cluster/node.ts): called at start, before `events` starts, with the bot's
   * handling of one message; the cluster runs it for each message a partition delivers, in place
   * of the intake. Unset, the intake handles what `events` delivers (the single-process path).
   */
  attach?: (handling: MessageHandling) => void;
}

/** The bot's own handling of events, for a source that delivers messages itself (cluster mode). */
export interface MessageHandling {
  /** Runs one message through the pipeline; resolves when its conversation may move on. */
  handle(message: Message, flags: string[]): Promise<void>;
  /** Puts an event on the bot's bus, for `bot.on` listeners. */
  emit(event: AnyEvent): void;
}

/** What `bot.reload()` may change while the bot runs; what it leaves out stays as it is. */
export interface BotReload {
  /** The plugins (and their settings) in place of the running ones: commands, listeners, cron jobs, routes. */
  plugins?: (Plugin | PluginInstance)[];
  /** The config's cron jobs (`schedules:`) in place of the running ones. */
  schedules?: ScheduleEntry[];
  /** The log level from now on (`logging.level`): trace, debug, info, warn, error, fatal or silent. */
  logLevel?: string;
}
