// How the client reaches the server: the one place that builds its undici dispatcher (a keep-alive
// Pool of the site's origin, or a ProxyAgent when a proxy applies) with the TLS settings.
import { createRequire } from "node:module";
import type * as NodeTls from "node:tls";
import { Pool, ProxyAgent, type Dispatcher } from "undici";

/** TLS settings for the connection to the server (PEM text, not file names). */
export interface TlsSettings {
  /** Certificate authorities to trust (PEM), in addition to Node's: a private CA. */
  ca?: string | Buffer;
  /** Accept any certificate (no verification). For tests against self-signed servers only. */
  insecure?: boolean;
  /** Client certificate (PEM) for a server that requires one. */
  cert?: string | Buffer;
  /** Its private key (PEM). */
  key?: string | Buffer;
}

export interface ConnectionOptions {
  /**
   * Proxy URL (`http://proxy.internal:3128`, with `user:password@` when it needs them); `false`
   * for none whatever the environment says. Omitted: `HTTPS_PROXY`/`HTTP_PROXY` (lower-case
   * first, as curl reads them) by the site's scheme, unless `NO_PROXY` names its host.
   */
  proxy?: string | false;
  tls?: TlsSettings;
  /** The environment the proxy variables are read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

const POOL_OPTIONS = {
  keepAliveTimeout: 30_000,
  keepAliveMaxTimeout: 600_000,
  connections: 64,
} as const;

/** Whether a `NO_PROXY` list (comma or space separated) names `url`'s host (and port, when given). */
export function noProxyMatches(list: string | undefined, url: URL): boolean {
  if (!list) return false;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  for (const raw of list.split(/[,\s]+/)) {
    let entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    if (entry === "*") return true;
    let entryPort: string | undefined;
    const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    if (v6) [, entry, entryPort] = v6 as unknown as [string, string, string | undefined];
    else {
      const withPort = /^(.*):(\d+)$/.exec(entry);
      if (withPort && !withPort[1]!.includes(":"))
        [, entry, entryPort] = withPort as unknown as [string, string, string];
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    entry = entry.replace(/^\*?\./, "");
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

/**
 * The proxy for `origin`, or undefined for a direct connection: the explicit setting, else the
 * environment (`https_proxy`/`HTTPS_PROXY` for an https site, `http_proxy`/`HTTP_PROXY` for http);
 * `NO_PROXY`/`no_proxy` exempts hosts in both cases.
 */
export function proxyFor(origin: string, options: ConnectionOptions = {}): string | undefined {
  if (options.proxy === false) return undefined;
  const env = options.env ?? process.env;
  const url = new URL(origin);
  const fromEnv =
    url.protocol === "https:"
      ? env.https_proxy || env.HTTPS_PROXY
      : env.http_proxy || env.HTTP_PROXY;
  const proxy = options.proxy || fromEnv || undefined;
  if (!proxy) return undefined;
  if (noProxyMatches(env.no_proxy ?? env.NO_PROXY, url)) return undefined;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/** The proxy URL without its password, for logs and messages. */
export function redactProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.password) url.password = "redacted";
    return url.toString().replace(/\/$/, "");
  } catch {
    return "(unparsable proxy URL)";
  }
}

/** Node's TLS options for `tls`. */
function connectOptions(tls: TlsSettings | undefined): Record<string, unknown> | undefined {
  if (!tls) return undefined;
  const out: Record<string, unknown> = {};
  if (tls.ca !== undefined) {
    // Node's own roots plus the private CA, as NODE_EXTRA_CA_CERTS would give.
    const { rootCertificates } = nodeTls();
    out.ca = [...rootCertificates, tls.ca];
  }
  if (tls.insecure) out.rejectUnauthorized = false;
  if (tls.cert !== undefined) out.cert = tls.cert;
  if (tls.key !== undefined) out.key = tls.key;
  return Object.keys(out).length > 0 ? out : undefined;
}

const require = createRequire(import.meta.url);

/** node:tls, loaded only for a private CA. */
function nodeTls(): typeof NodeTls {
  return require("node:tls") as typeof NodeTls;
}

/**
 * The dispatcher for every request to `origin`. Without a proxy, a Pool of the one origin (not an
 * Agent, which would look the origin's pool up on each request to reach the same pool). With one,
 * undici's ProxyAgent: an https site goes through a CONNECT tunnel, an http one is forwarded.
 */
export function createDispatcher(origin: string, options: ConnectionOptions = {}): Dispatcher {
  const connect = connectOptions(options.tls);
  const proxy = proxyFor(origin, options);
  if (!proxy) return new Pool(origin, connect ? { ...POOL_OPTIONS, connect } : POOL_OPTIONS);
  return new ProxyAgent({
    uri: proxy,
    ...POOL_OPTIONS,
    ...(connect && { requestTls: connect }),
  });
}
