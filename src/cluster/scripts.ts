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
 * Whether the caller still owns a partition (a Lua fragment the partition scripts start with).
 * A partition lock holds `<token>:<node>`, and a second key (`last`) keeps the value the lock was
 * last taken with, without a TTL. A lock that lapsed while Redis was unreachable (or this node cut
 * off) is the caller's again if nobody took it since: `last` still holds the caller's value. Then
 * the lock is set again and the caller carries on where it was, in order; a lock someone else took
 * meanwhile (even if since released) is not. KEYS[1]: lock, KEYS[2]: last. ARGV[1]: holder, ARGV[2]: ttl.
 */
const OWNS = `
local function owns(lock, last, holder, ttl)
  local v = redis.call('get', lock)
  if v == holder then return true end
  if v or redis.call('get', last) ~= holder then return false end
  redis.call('set', lock, holder, 'PX', ttl)
  return true
end
`;

/**
 * Takes, renews or resumes a partition lock. With a holder (ARGV[2]): renews it, or resumes it after
 * a lapse (see OWNS); returns the holder, or false when the partition is someone else's now. Without
 * (ARGV[2] == ''): takes a free lock (or one left by an earlier process of this node's name) with a
 * new token; returns the new holder, or false when it is held. KEYS: lock, last. ARGV: node, holder, ttl.
 */
const HOLD = `${OWNS}
if ARGV[2] ~= '' then
  if owns(KEYS[1], KEYS[2], ARGV[2], ARGV[3]) then return ARGV[2] end
  return false
end
local v = redis.call('get', KEYS[1])
if v and string.sub(v, -#ARGV[1] - 1) ~= ':' .. ARGV[1] then return false end
local last = redis.call('get', KEYS[2])
local token = (last and tonumber(string.match(last, '^(%d+)')) or 0) + 1
local holder = token .. ':' .. ARGV[1]
redis.call('set', KEYS[1], holder, 'PX', ARGV[3])
redis.call('set', KEYS[2], holder)
return holder`;

/** Gives a partition lock up (only the caller's); it cannot be resumed after. KEYS: lock, last. ARGV: holder. */
const LET_GO = `
if redis.call('get', KEYS[2]) == ARGV[1] then redis.call('set', KEYS[2], ARGV[1] .. '~') end
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('del', KEYS[1])
return 1`;

/**
 * Records a reply intent, fenced by the partition lock of the message being handled, so a worker
 * that lost its partition cannot send, and extends the lock by its TTL: the caller knows it is
 * its own for that long from when it asked. KEYS: lock, last, reply hash, reply index.
 * ARGV: lock holder, ttl, field, intent JSON, incoming ID.
 */
const INTEND = `${OWNS}
if not owns(KEYS[1], KEYS[2], ARGV[1], ARGV[2]) then return redis.error_reply('FENCED: partition moved') end
redis.call('pexpire', KEYS[1], ARGV[2])
redis.call('hset', KEYS[3], ARGV[3], ARGV[4])
redis.call('zadd', KEYS[4], ARGV[5], ARGV[5])
return 1`;

/**
 * Acknowledges and deletes a handled entry, only while the caller owns the partition (a worker that
 * lost it leaves the entry pending, for the new owner to claim). KEYS: lock, last, stream.
 * ARGV: holder, ttl, group, entry ID. Returns 1, or 0 when the partition is someone else's.
 */
const ACK = `${OWNS}
if not owns(KEYS[1], KEYS[2], ARGV[1], ARGV[2]) then return 0 end
redis.call('xack', KEYS[3], ARGV[3], ARGV[4])
redis.call('xdel', KEYS[3], ARGV[4])
return 1`;

/**
 * Reads new entries of the partitions the caller still holds (a worker that lost a lock reads
 * nothing more from it, so no entry is delivered to it after the new owner claimed the pending
 * ones). KEYS: lock, last, stream, lock, last, stream, ... ARGV: consumer, group, count, ttl, holder, holder, ...
 * Returns per partition: { stream, entries (or false), newest entry ID (or '0-0') }, or false when it is not the caller's.
 */
const READ = `${OWNS}
local out = {}
for i = 1, #KEYS, 3 do
  if owns(KEYS[i], KEYS[i + 1], ARGV[4 + (i + 2) / 3], ARGV[4]) then
    local r = redis.call('xreadgroup', 'GROUP', ARGV[2], ARGV[1], 'COUNT', ARGV[3], 'STREAMS', KEYS[i + 2], '>')
    local top = redis.call('xrevrange', KEYS[i + 2], '+', '-', 'COUNT', 1)
    out[#out + 1] = { KEYS[i + 2], r and r[1][2] or false, top[1] and top[1][1] or '0-0' }
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
  fencedIntend: { numberOfKeys: 4, lua: INTEND },
  fencedAck: { numberOfKeys: 3, lua: ACK },
  hold: { numberOfKeys: 2, lua: HOLD },
  letGo: { numberOfKeys: 2, lua: LET_GO },
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
  fencedIntend(
    ...args: [
      lock: string,
      last: string,
      hash: string,
      index: string,
      holder: string,
      ttlMs: number,
      field: string,
      intent: string,
      incomingId: number,
    ]
  ): Promise<number>;
  fencedAck(
    ...args: [
      lock: string,
      last: string,
      stream: string,
      holder: string,
      ttlMs: number,
      group: string,
      id: string,
    ]
  ): Promise<number>;
  /** `holder` '' takes a free lock; returns the holder, or null when the partition is someone else's. */
  hold(
    lock: string,
    last: string,
    node: string,
    holder: string,
    ttlMs: number,
  ): Promise<string | null>;
  letGo(lock: string, last: string, holder: string): Promise<number>;
};

/** What fences a partition's work: its lock and last-holder keys, and the lock value this node holds. */
export interface Fence {
  lock: string;
  last: string;
  holder: string;
}

/** Runs the fenced read (READ) over partitions, each [fence, stream]; `consumer` is the node's name. */
export async function fencedRead(
  redis: Redis,
  parts: [fence: Fence, stream: string][],
  consumer: string,
  group: string,
  count: number,
  ttlMs: number,
): Promise<FencedReadAnswer[]> {
  const keys = parts.flatMap(([f, stream]) => [f.lock, f.last, stream]);
  const holders = parts.map(([f]) => f.holder);
  return (await redis.eval(
    READ,
    keys.length,
    ...keys,
    consumer,
    group,
    count,
    ttlMs,
    ...holders,
  )) as FencedReadAnswer[];
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
