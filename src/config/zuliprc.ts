// zuliprc files: the INI file Zulip hands out for a bot (`[api]` with `email`, `key`, `site`).
import { ConfigError } from "./errors.js";

export interface ZuliprcCredentials {
  email: string;
  apiKey: string;
  site: string;
  /**
   * The TLS settings under the Python client's names (`cert_bundle`, `insecure`, `client_cert`,
   * `client_cert_key`), as file names as written; present only when one is set.
   */
  tls?: { ca?: string; insecure?: boolean; cert?: string; key?: string };
}

/** Parses INI text into sections of key-value pairs (`;` and `#` start comments; keys are case-insensitive). */
export function parseIni(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      const name = header[1]!.trim();
      current = sections.get(name) ?? new Map();
      sections.set(name, current);
      continue;
    }
    const eq = line.search(/[=:]/);
    if (eq <= 0 || !current) continue;
    current.set(line.slice(0, eq).trim().toLowerCase(), line.slice(eq + 1).trim());
  }
  return sections;
}

/**
 * Reads the credentials of a zuliprc file, as Zulip's own bindings do: a `site` without a scheme
 * gets `https://`, a trailing `/api` or `/` is dropped. A missing key is a ConfigError naming
 * the zuliprc file and the key (`api.key`); the key's value never appears in errors.
 *
 * @example
 * parseZuliprc("[api]\nemail=bot@example.com\nkey=abc\nsite=chat.example.com", "zuliprc");
 * // { email: "bot@example.com", apiKey: "abc", site: "https://chat.example.com" }
 */
export function parseZuliprc(text: string, file: string): ZuliprcCredentials {
  const api = parseIni(text).get("api");
  if (!api) throw new ConfigError(file, "api", "no [api] section (expected email, key and site)");
  const value = (key: string): string => {
    const found = api.get(key);
    if (!found) throw new ConfigError(file, `api.${key}`, "missing or empty");
    return found;
  };
  const email = value("email");
  const apiKey = value("key");
  let site = value("site")
    .replace(/\/+$/, "")
    .replace(/\/api$/, "");
  if (!/^https?:\/\//i.test(site)) site = `https://${site}`;
  const tls: NonNullable<ZuliprcCredentials["tls"]> = {};
  const insecure = api.get("insecure");
  if (insecure !== undefined && insecure !== "") {
    // The Python client's rule: true or false, in any case; anything else is an error.
    if (!/^(true|false)$/i.test(insecure))
      throw new ConfigError(
        file,
        "api.insecure",
        `is ${JSON.stringify(insecure)}: it must be true or false`,
      );
    tls.insecure = insecure.toLowerCase() === "true";
  }
  for (const [name, key] of [
    ["cert_bundle", "ca"],
    ["client_cert", "cert"],
    ["client_cert_key", "key"],
  ] as const) {
    const found = api.get(name);
    if (found) tls[key] = found;
  }
  if (tls.key !== undefined && tls.cert === undefined)
    throw new ConfigError(
      file,
      "api.client_cert_key",
      "is set without client_cert (the certificate it is the key of)",
    );
  return Object.keys(tls).length > 0 ? { email, apiKey, site, tls } : { email, apiKey, site };
}
