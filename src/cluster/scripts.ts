// The Lua scripts that make lease, fencing and publishing atomic in Redis (each runs as one step).
import type { Redis } from "ioredis";

/** Takes the lease if free: a new fencing token from INCR, the value `<token>:<node>`; 0 when held. */
const ACQUIRE = `
if redis.call('exists', KEYS[1]) == 1 then return 0 end
local token = redis.call('incr', KEYS[2])
redis.call('set', KEYS[1], token .. ':' .. ARGV[1], 'PX', ARGV[2])
return token`;

/** Extends a lease only while it still holds the caller's value: 1, else 0. */
const RENEW = `
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('pexpire', KEYS[1], ARGV[2])
return 1`;

/** Deletes a lease only while it still holds the caller's value. */
const RELEASE = `
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('del', KEYS[1])
return 1`;

/**
 * Publishes one event, fenced: refused unless the leader lease holds the caller's token. A message
 * (ARGV[2] > 0) is published once (the published set) and advances the watermark in the same step.
 * KEYS: lease, stream, published, watermark. ARGV: holder, message ID (0: not a message), payload, maxlen (0: none).
 */
const PUBLISH = `
if redis.call('get', KEYS[1]) ~= ARGV[1] then return redis.error_reply('FENCED: not the leader') end
local id = tonumber(ARGV[2])
if id > 0 then
  if redis.call('zadd', KEYS[3], 'NX', id, ARGV[2]) == 0 then return 0 end
  if redis.call('zcard', KEYS[3]) > 200000 then redis.call('zremrangebyrank', KEYS[3], 0, 99999) end
end
if tonumber(ARGV[4]) > 0 then
  redis.call('xadd', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[3])
else
  redis.call('xadd', KEYS[2], '*', 'e', ARGV[3])
end
if id > 0 and id > tonumber(redis.call('get', KEYS[4]) or '0') then redis.call('set', KEYS[4], ARGV[2]) end
return 1`;

/** Sets the watermark where none is, fenced like PUBLISH. KEYS: lease, watermark. ARGV: holder, ID. */
const BASELINE = `
if redis.call('get', KEYS[1]) ~= ARGV[1] then return redis.error_reply('FENCED: not the leader') end
redis.call('set', KEYS[2], ARGV[2], 'NX')
return tonumber(redis.call('get', KEYS[2]))`;

/**
 * A node's heartbeat, timed by Redis's clock: renews its membership and description, drops expired
 * members, and returns the live ones. KEYS: members, member. ARGV: node, ttl ms, description.
 */
const HEARTBEAT = `
local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
redis.call('zadd', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('set', KEYS[2], ARGV[3], 'PX', ARGV[2])
return redis.call('zrange', KEYS[1], 0, -1)`;

/**
 * Records a reply intent, fenced by the partition lock of the message being handled, so a worker
 * that lost its partition cannot send. KEYS: reply hash, reply index, partition lock.
 * ARGV: field, intent JSON, incoming ID, lock holder.
 */
const INTEND = `
if redis.call('get', KEYS[3]) ~= ARGV[4] then return redis.error_reply('FENCED: partition moved') end
redis.call('hset', KEYS[1], ARGV[1], ARGV[2])
redis.call('zadd', KEYS[2], ARGV[3], ARGV[3])
return 1`;

/**
 * Acknowledges and deletes a handled entry, only while the caller owns the partition (a worker that
 * lost it leaves the entry pending, for the new owner to claim). KEYS: lock, stream. ARGV: holder, group, entry ID.
 */
const ACK = `
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('xack', KEYS[2], ARGV[2], ARGV[3])
redis.call('xdel', KEYS[2], ARGV[3])
return 1`;

/** Takes a free partition lock or extends one held by the caller: 1, else 0. KEYS: lock. ARGV: holder, ttl. */
const HOLD = `
local v = redis.call('get', KEYS[1])
if v and v ~= ARGV[1] then return 0 end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/**
 * Reads new entries of the partitions the caller still holds (a worker that lost a lock reads
 * nothing more from it, so no entry is delivered to it after the new owner claimed the pending
 * ones). KEYS: lock, stream, lock, stream, ... ARGV: holder, group, count.
 * Returns per pair: { stream, entries (or false), newest entry ID (or '0-0') }; a lost lock gives false.
 */
const READ = `
local out = {}
for i = 1, #KEYS, 2 do
  if redis.call('get', KEYS[i]) == ARGV[1] then
    local r = redis.call('xreadgroup', 'GROUP', ARGV[2], ARGV[1], 'COUNT', ARGV[3], 'STREAMS', KEYS[i + 1], '>')
    local top = redis.call('xrevrange', KEYS[i + 1], '+', '-', 'COUNT', 1)
    out[#out + 1] = { KEYS[i + 1], r and r[1][2] or false, top[1] and top[1][1] or '0-0' }
  else
    out[#out + 1] = false
  end
end
return out`;

const SCRIPTS = {
  leaseAcquire: { numberOfKeys: 2, lua: ACQUIRE },
  leaseRenew: { numberOfKeys: 1, lua: RENEW },
  leaseRelease: { numberOfKeys: 1, lua: RELEASE },
  publish: { numberOfKeys: 4, lua: PUBLISH },
  baseline: { numberOfKeys: 2, lua: BASELINE },
  heartbeat: { numberOfKeys: 2, lua: HEARTBEAT },
  fencedIntend: { numberOfKeys: 3, lua: INTEND },
  fencedAck: { numberOfKeys: 2, lua: ACK },
  hold: { numberOfKeys: 1, lua: HOLD },
} as const;

/** The fenced read's answer for one partition (false: its lock is not the caller's any more). */
export type FencedReadAnswer =
  [stream: string, entries: [string, string[]][] | null, newest: string] | null;

type Arg = string | number;

/** A Redis client with the cluster's scripts as commands (EVALSHA, loaded on first use). */
export type ScriptedRedis = Redis & {
  leaseAcquire(lease: string, epoch: string, node: string, ttlMs: number): Promise<number>;
  leaseRenew(lease: string, holder: string, ttlMs: number): Promise<number>;
  leaseRelease(lease: string, holder: string): Promise<number>;
  publish(...args: [string, string, string, string, string, Arg, string, Arg]): Promise<number>;
  baseline(lease: string, watermark: string, holder: string, id: number): Promise<number>;
  heartbeat(
    members: string,
    member: string,
    node: string,
    ttlMs: number,
    about: string,
  ): Promise<string[]>;
  fencedIntend(...args: [string, string, string, string, string, Arg, string]): Promise<number>;
  fencedAck(
    lock: string,
    stream: string,
    holder: string,
    group: string,
    id: string,
  ): Promise<number>;
  hold(lock: string, holder: string, ttlMs: number): Promise<number>;
};

/** Runs the fenced read (READ) over `pairs` of [lock, stream]. */
export async function fencedRead(
  redis: Redis,
  pairs: [lock: string, stream: string][],
  holder: string,
  group: string,
  count: number,
): Promise<FencedReadAnswer[]> {
  const keys = pairs.flat();
  return (await redis.eval(READ, keys.length, ...keys, holder, group, count)) as FencedReadAnswer[];
}

/** Registers the scripts on a client. */
export function withScripts(redis: Redis): ScriptedRedis {
  for (const [name, script] of Object.entries(SCRIPTS))
    redis.defineCommand(name, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  return redis as ScriptedRedis;
}

/** True for the error a fenced script raises when the caller lost its lease. */
export const isFenced = (error: unknown): boolean =>
  error instanceof Error && error.message.includes("FENCED");
