// server.tls (and a zuliprc's cert_bundle, client_cert, client_cert_key): the PEM files read, each checked.
import { dirname, resolve } from "node:path";
import { homedir } from "node:os";
import { ConfigError } from "./errors.js";

/** TLS settings as written: file names (relative to `baseDir`) and the insecure switch. */
export interface TlsFiles {
  ca?: string;
  insecure?: boolean;
  cert?: string;
  key?: string;
}

/** What the client takes: the PEM text, and which file each part came from. */
export interface TlsRead {
  ca?: string;
  insecure?: boolean;
  cert?: string;
  key?: string;
  files?: Record<string, string>;
}

/** How each part is named where it was written: `server.tls.ca` in YAML, `api.cert_bundle` in a zuliprc. */
export type TlsKeyNames = Record<"ca" | "cert" | "key", string>;

export const YAML_TLS_KEYS: TlsKeyNames = {
  ca: "server.tls.ca",
  cert: "server.tls.cert",
  key: "server.tls.key",
};
export const ZULIPRC_TLS_KEYS: TlsKeyNames = {
  ca: "api.cert_bundle",
  cert: "api.client_cert",
  key: "api.client_cert_key",
};

const EXPECTED = {
  ca: [/-----BEGIN CERTIFICATE-----/, "a PEM certificate (-----BEGIN CERTIFICATE-----)"],
  cert: [/-----BEGIN CERTIFICATE-----/, "a PEM certificate (-----BEGIN CERTIFICATE-----)"],
  key: [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, "a PEM private key (-----BEGIN PRIVATE KEY-----)"],
} as const;

/**
 * The text of a file a config key names (`~` and paths relative to the directory of `file`, the
 * config or zuliprc naming it): with its resolved path, or a ConfigError naming `file` and `key`
 * when it is missing or unreadable.
 */
export function readNamedFile(
  file: string,
  key: string,
  name: string,
  readText: (path: string) => string,
  what = "file",
): { path: string; text: string } {
  const path = resolve(dirname(resolve(file)), name.replace(/^~(?=$|\/)/, homedir()));
  try {
    return { path, text: readText(path) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(
      file,
      key,
      code === "ENOENT"
        ? `${what} ${path} not found`
        : `cannot read ${path}: ${code ?? (error as Error).message}${code === "EACCES" ? " (is it readable by the bot's user?)" : ""}`,
    );
  }
}

/**
 * Reads the PEM files of `files`, relative to the directory of `file` (the config or the zuliprc
 * that names them). A missing or unreadable file, or one that is not PEM, is a ConfigError naming
 * `file` and the key; the files' text never appears in errors.
 */
export function readTlsFiles(
  files: TlsFiles,
  file: string,
  names: TlsKeyNames,
  readText: (path: string) => string,
): TlsRead {
  const out: TlsRead = {};
  const where: Record<string, string> = {};
  const read = (part: "ca" | "cert" | "key", name: string): string => {
    const { path, text } = readNamedFile(file, names[part], name, readText);
    const [pattern, expected] = EXPECTED[part];
    if (!pattern.test(text)) throw new ConfigError(file, names[part], `${path} is not ${expected}`);
    where[part] = path;
    return text;
  };
  if (files.key !== undefined && files.cert === undefined)
    throw new ConfigError(
      file,
      names.key,
      `is set without ${names.cert} (the certificate it is the key of)`,
    );
  if (files.ca !== undefined) out.ca = read("ca", files.ca);
  if (files.cert !== undefined) {
    out.cert = read("cert", files.cert);
    if (files.key !== undefined) out.key = read("key", files.key);
    else if (EXPECTED.key[0].test(out.cert)) out.key = out.cert;
    else
      throw new ConfigError(
        file,
        names.key,
        `missing: ${where.cert} holds no private key, so give the key's file too`,
      );
  }
  if (files.insecure !== undefined) out.insecure = files.insecure;
  if (Object.keys(where).length > 0) out.files = where;
  return out;
}
