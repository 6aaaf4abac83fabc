// Rate-limit pacing shared by every node of a cluster: one budget per bot account in Redis, spent atomically.
import type { Redis } from "ioredis";
import type { PacingBudget } from "../client/pacing.js";
import type { Logger } from "../log/logger.js";
import { connectRedis } from "../state/key-value/redis.js";

/**
 * Spends one request: resets the state once the server's reset time has passed; with the remaining
 * count unknown, lets one request go as a probe (the others wait for its headers); else spends one
 * or answers how long to wait. KEYS: state hash. ARGV: now ms, probe ms, ttl ms. Returns ms to wait.
 */
const SPEND = `
local now = tonumber(ARGV[1])
local s = redis.call('hmget', KEYS[1], 'remaining', 'reset', 'unlimited')
if s[3] then return 0 end
if s[2] and now >= tonumber(s[2]) then
  redis.call('del', KEYS[1])
  s = {false, false}
end
if not s[1] then
  redis.call('hset', KEYS[1], 'remaining', 0, 'reset', now + tonumber(ARGV[2]), 'probe', 1, 'inflight', 1)
  redis.call('pexpire', KEYS[1], ARGV[3])
  return 0
end
local remaining = tonumber(s[1])
if remaining > 0 then
  redis.call('hset', KEYS[1], 'remaining', remaining - 1)
  redis.call('hincrby', KEYS[1], 'inflight', 1)
  return 0
end
return math.max(1, tonumber(s[2]) - now)`;

/**
 * Takes a response's headers. A newer reset time (or the answer to a probe) replaces the state,
 * less the requests spent and still in flight (the server has not counted them yet); the same
 * reset time only ever lowers the remaining count (responses arrive out of order); an older one
 * is ignored. A response without the headers (a server with no limit) marks the account unlimited
 * for a while. KEYS: state hash. ARGV: remaining ('' when absent), reset ms, ttl ms, unlimited ttl ms.
 */
const OBSERVE = `
if ARGV[1] == '' then
  redis.call('del', KEYS[1])
  redis.call('hset', KEYS[1], 'unlimited', 1)
  redis.call('pexpire', KEYS[1], ARGV[4])
  return 1
end
local remaining = tonumber(ARGV[1])
local reset = tonumber(ARGV[2])
local s = redis.call('hmget', KEYS[1], 'remaining', 'reset', 'probe', 'inflight')
local inflight = math.max(0, (tonumber(s[4]) or 0) - 1)
if s[3] or not s[2] or reset > tonumber(s[2]) then
  redis.call('hset', KEYS[1], 'remaining', math.max(0, remaining - inflight), 'reset', reset, 'inflight', inflight)
  redis.call('hdel', KEYS[1], 'probe')
elseif reset == tonumber(s[2]) then
  redis.call('hset', KEYS[1], 'remaining', math.min(tonumber(s[1]) or remaining, remaining), 'inflight', inflight)
else
  redis.call('hset', KEYS[1], 'inflight', inflight)
end
redis.call('pexpire', KEYS[1], ARGV[3])
return 1`;

/** How long a probe request may take before another request is let through. */
const PROBE_MS = 1_000;
/** The state outlives any server window (real servers: 60 s). */
const STATE_TTL_MS = 120_000;
/** How long a spend waits for Redis before the request goes unpaced. */
const SPEND_WAIT_MS = 500;
/** How long a response without rate-limit headers lets requests go unpaced. */
const UNLIMITED_MS = 10_000;

type PacingRedis = Redis & {
  pacingSpend(key: string, now: number, probeMs: number, ttlMs: number): Promise<number>;
  pacingObserve(
    key: string,
    remaining: number | "",
    resetMs: number,
    ttlMs: number,
    unlimitedMs: number,
  ): Promise<number>;
};

export interface RedisPacingBudgetOptions {
  redis: Redis;
  /** The bot account whose budget this is (the key includes it: one budget per account). */
  account: string;
  /** Key prefix. Default `topicbot:cluster:`. */
  prefix?: string;
  /** Redis unreachable: called once per failure; the request goes unpaced meanwhile. */
  onError?(error: unknown): void;
}

/**
 * The client's rate-limit budget (`createClient({ pacing: { budget } })`) kept in Redis, so all the
 * processes of one bot account stay within the server's one limit together: each request spends
 * from the count the server last reported (to any node), atomically. Without Redis a request is
 * not held back (the server's refusal and the client's retry-after remain the backstop).
 *
 * @example
 * const budget = new RedisPacingBudget({ redis, account: "bot@example.com" });
 * const client = createClient({ site, email, apiKey, pacing: { budget } });
 */
export class RedisPacingBudget implements PacingBudget {
  readonly #redis: PacingRedis;
  readonly #key: string;
  readonly #onError: (error: unknown) => void;

  constructor(options: RedisPacingBudgetOptions) {
    const redis = options.redis;
    if (!("pacingSpend" in redis)) {
      redis.defineCommand("pacingSpend", { numberOfKeys: 1, lua: SPEND });
      redis.defineCommand("pacingObserve", { numberOfKeys: 1, lua: OBSERVE });
    }
    this.#redis = redis as PacingRedis;
    this.#key = `${options.prefix ?? "topicbot:cluster:"}pacing:${options.account}`;
    this.#onError = options.onError ?? (() => undefined);
  }

  async spend(now: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    try {
      // A connection that hangs (Redis cut off, not refused) must not hold requests back either.
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("Redis did not answer in time")), SPEND_WAIT_MS);
      });
      return await Promise.race([
        this.#redis.pacingSpend(this.#key, now, PROBE_MS, STATE_TTL_MS),
        late,
      ]);
    } catch (error) {
      this.#onError(error);
      return 0;
    } finally {
      clearTimeout(timer);
    }
  }

  observe(headers: { remaining?: number; reset?: number }): void {
    const { remaining, reset } = headers;
    const limited = remaining !== undefined && reset !== undefined;
    this.#redis
      .pacingObserve(
        this.#key,
        limited ? remaining : "",
        limited ? reset * 1000 : 0,
        STATE_TTL_MS,
        UNLIMITED_MS,
      )
      .catch((error: unknown) => this.#onError(error));
  }
}

/**
 * The shared budget of a `bot start --cluster` node, on a Redis connection of its own (closed with
 * `close`); Redis failures are logged at most every 5 s.
 */
export function clusterPacing(
  url: string,
  account: string,
  log: Logger,
): { budget: RedisPacingBudget; close(): Promise<void> } {
  let warned = 0;
  const onError = (error: unknown): void => {
    if (Date.now() - warned < 5_000) return;
    warned = Date.now();
    log.warn({ err: error }, "cluster: shared rate-limit pacing unavailable; requests go unpaced");
  };
  const redis = connectRedis(url, "topicbot-pacing", { onError, failFast: true });
  return {
    budget: new RedisPacingBudget({ redis, account, onError }),
    close: () =>
      redis.quit().then(
        () => undefined,
        () => redis.disconnect(),
      ),
  };
}
