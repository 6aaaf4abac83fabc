// Redis addresses: a `redis://` URL, or a Sentinel set (`redis+sentinel://` URL or its parts) turned into ioredis options.
import type { RedisOptions } from "ioredis";

/** A Sentinel set as the config may spell it out (the parts of a `redis+sentinel://` URL). */
export interface SentinelSet {
  sentinels: { host: string; port?: number }[];
  /** The primary's name the sentinels monitor (`sentinel monitor <name> ...`). Default `mymaster`. */
  name?: string;
  db?: number;
  username?: string;
  password?: string;
  sentinelPassword?: string;
}

/** Where ioredis connects: a plain URL (`redis://`, `rediss://`) or options for a Sentinel set. */
export type RedisTarget = { url: string } | { options: RedisOptions };

const SENTINEL_SCHEME = "redis+sentinel://";

/** True for a `redis+sentinel://` URL. */
export const isSentinelUrl = (url: string): boolean => url.startsWith(SENTINEL_SCHEME);

/**
 * Parses `redis+sentinel://[[user]:password@]host:port[,host:port...]/<name>[/<db>][?sentinelPassword=...]`
 * (the form redis-py, Sidekiq and others read) into ioredis's Sentinel options.
 *
 * @example
 * parseSentinelUrl("redis+sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster/0");
 * // → { sentinels: [{ host: "10.0.0.5", port: 26379 }, { host: "10.0.0.6", port: 26379 }], name: "mymaster", db: 0 }
 */
export function parseSentinelUrl(url: string): SentinelSet {
  if (!isSentinelUrl(url)) throw new TypeError(`not a redis+sentinel:// URL: ${redact(url)}`);
  const rest = url.slice(SENTINEL_SCHEME.length);
  const [beforeQuery = "", query = ""] = rest.split("?", 2);
  const at = beforeQuery.lastIndexOf("@");
  const auth = at >= 0 ? beforeQuery.slice(0, at) : "";
  const [hosts = "", name, db] = beforeQuery.slice(at + 1).split("/");
  const sentinels = hosts
    .split(",")
    .filter((h) => h !== "")
    .map((h) => {
      const colon = h.lastIndexOf(":");
      const host = colon > 0 ? h.slice(0, colon).replace(/^\[|\]$/g, "") : h;
      const port = colon > 0 ? Number(h.slice(colon + 1)) : 26379;
      if (!host || !Number.isInteger(port) || port <= 0 || port > 65535)
        throw new TypeError(`bad sentinel address "${h}" in ${redact(url)}`);
      return { host, port };
    });
  if (sentinels.length === 0) throw new TypeError(`no sentinel address in ${redact(url)}`);
  const set: SentinelSet = { sentinels, name: name ? decodeURIComponent(name) : "mymaster" };
  if (db !== undefined && db !== "") {
    if (!/^\d+$/.test(db)) throw new TypeError(`bad database number "${db}" in ${redact(url)}`);
    set.db = Number(db);
  }
  if (auth) {
    const colon = auth.indexOf(":");
    const user = colon >= 0 ? auth.slice(0, colon) : "";
    const password = colon >= 0 ? auth.slice(colon + 1) : auth;
    if (user) set.username = decodeURIComponent(user);
    if (password) set.password = decodeURIComponent(password);
  }
  const sentinelPassword = new URLSearchParams(query).get("sentinelPassword");
  if (sentinelPassword) set.sentinelPassword = sentinelPassword;
  return set;
}

/** The `redis+sentinel://` URL of a Sentinel set (so one string names the cluster's Redis everywhere). */
export function sentinelUrl(set: SentinelSet): string {
  const auth =
    set.password || set.username
      ? `${encodeURIComponent(set.username ?? "")}:${encodeURIComponent(set.password ?? "")}@`
      : "";
  const hosts = set.sentinels
    .map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port ?? 26379}`)
    .join(",");
  const db = set.db === undefined ? "" : `/${set.db}`;
  const query = set.sentinelPassword
    ? `?sentinelPassword=${encodeURIComponent(set.sentinelPassword)}`
    : "";
  return `${SENTINEL_SCHEME}${auth}${hosts}/${encodeURIComponent(set.name ?? "mymaster")}${db}${query}`;
}

/** What ioredis is given for `url`: the URL itself, or Sentinel options for `redis+sentinel://`. */
export function redisTarget(url: string): RedisTarget {
  if (!isSentinelUrl(url)) return { url };
  const { sentinels, ...rest } = parseSentinelUrl(url);
  return {
    options: { sentinels: sentinels.map((s) => ({ host: s.host, port: s.port })), ...rest },
  };
}

/** The URL with its password replaced by `***` (for errors and logs). */
export function redact(url: string): string {
  return url
    .replace(/\/\/([^@/]*):([^@/]*)@/, "//$1:***@")
    .replace(/(sentinelPassword=)[^&]*/, "$1***");
}
