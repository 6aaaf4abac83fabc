// Delivery assembled: the store, the delivery ledger, the outbox and the reply guard of one bot, loaded and closed together.
import type { ApiClient } from "../client/client.js";
import type { DeadlinePolicy } from "../client/retry.js";
import type { Logger } from "../log/logger.js";
import type { BotMetrics } from "../metrics/bot.js";
import type { StorageHealth } from "../state/health.js";
import { loggedStorageHealth, UnsavedStorageError } from "../state/health.js";
import type { KeyValueStore } from "../state/key-value/store.js";
import type { ServerFacts } from "../context/actions.js";
import type { Directory } from "../context/directory.js";
import { DeliveryLedger } from "../inbound/ledger.js";
import { LoopGuard, type LoopGuardOptions } from "../outbound/loop-guard.js";
import { createOutbox, type Outbox } from "../outbound/outbox.js";
import { ReplyGuard } from "../outbound/reply-guard.js";
import type { DeliveryStore } from "../state/delivery/store.js";

export interface DeliveryOptions {
  api: ApiClient;
  store: DeliveryStore;
  log: Logger;
  metrics: BotMetrics;
  directory: Directory;
  server(): ServerFacts;
  /** The bot's user ID (known once started). */
  me(): number;
  now(): number;
  /** Incoming messages whose replies are remembered. */
  replyMemory?: number;
  /** Sending through outages: the deadline, backoff and an optional cap on attempts. */
  sendRetry?: Partial<DeadlinePolicy> & { attempts?: number };
  loopGuard?: Partial<LoopGuardOptions> | false;
  /** Storage health shared with the rest of the bot (a new one when absent). */
  health?: StorageHealth;
}

/** A bot's delivery machinery. */
export interface Delivery {
  readonly ledger: DeliveryLedger;
  readonly outbox: Outbox;
  readonly replies: ReplyGuard;
  readonly health: StorageHealth;
  /** Reads the store once (before anything is handled). */
  load(): Promise<void>;
  /** Writes what is pending and closes the store. */
  close(): Promise<void>;
}

/** What delivery-state writes are called in logs, health and metrics. */
const JOURNAL = "delivery";

/**
 * Builds the delivery parts over one store.
 *
 * @example
 * const delivery = createDelivery({ api, store, log, metrics, directory, server, me, now });
 * await delivery.load();
 * const services = { ...env, guard: delivery.replies.guard };
 */
export function createDelivery(options: DeliveryOptions): Delivery {
  const { log, store } = options;
  const health =
    options.health ?? loggedStorageHealth(log, (what) => options.metrics.storageWriteFailed(what));
  const ledger = new DeliveryLedger({
    store,
    onSaved: () => health.ok(JOURNAL),
    onError: (error) => health.failed(error, JOURNAL),
  });
  const { attempts, ...retry } = options.sendRetry ?? {};
  const outbox = createOutbox({
    api: options.api,
    me: options.me,
    floor: () => ledger.highestSeen,
    log,
    now: options.now,
    retry: { ...retry, maxAttempts: retry.maxAttempts ?? attempts },
  });
  const replies = new ReplyGuard({
    store,
    outbox,
    capacity: options.replyMemory,
    loopGuard:
      options.loopGuard === false
        ? undefined
        : new LoopGuard({ now: options.now, ...options.loopGuard }),
    directory: options.directory,
    server: options.server,
    floor: () => ledger.highestSeen,
    now: options.now,
    log,
    onStorageError: (error) => health.failed(error, JOURNAL),
    onStorageOk: () => health.ok(JOURNAL),
  });
  return {
    ledger,
    outbox,
    replies,
    health,
    async load() {
      const snapshot = await store.load();
      ledger.restore(snapshot.watermark);
      replies.restore(snapshot.replies);
    },
    async close() {
      await ledger.settled();
      await store.flush();
      await store.close();
    },
  };
}

/**
 * Writes what is pending on stop: the delivery state, then the key-value store. A failure
 * becomes one error saying what was not saved (never a stray rejection), logged once.
 */
export async function saveOnStop(
  delivery: Delivery,
  storage: KeyValueStore,
  log: Logger,
): Promise<UnsavedStorageError | undefined> {
  const lost: string[] = [];
  const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e));
  await delivery.close().catch((e: unknown) => lost.push(`the delivery state (${reason(e)})`));
  await storage
    .flush()
    .catch((e: unknown) =>
      lost.push(
        `plugin storage, sessions and open questions changed since the last write (${reason(e)})`,
      ),
    );
  if (lost.length === 0) return undefined;
  const error = new UnsavedStorageError(lost);
  log.error({ unsaved: lost }, error.message);
  return error;
}
