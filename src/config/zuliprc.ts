// zuliprc files: the INI file Zulip hands out for a bot (`[api]` with `email`, `key`, `site`).
import { ConfigError } from "./errors.js";

export interface ZuliprcCredentials {
  email: string;
  apiKey: string;
  site: string;
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
  return { email, apiKey, site };
}
