// Sanitizing a cassette: API keys out, emails and names replaced by stable aliases, content optionally hashed.
// Two forms of one set of rules: `value`/`text` on JS values (a replay's requests), `json` on the
// recorder's batch of JSON lines in a few passes over the whole text (`sanitize-json.ts`).
import { createHash } from "node:crypto";
import { KEPT_HEADERS } from "./cassette.js";
import {
  eachMentionName,
  eachNameField,
  eachRealmUrl,
  escapeJson,
  fitsOutsideStrings,
  inKey,
  keyOfValueAt,
  replaceContentFields,
  replaceEmails,
  replaceLiterals,
  replaceMentions,
  replaceSecretFields,
  unescapeJson,
} from "./sanitize-json.js";

export interface SanitizeOptions {
  /** Replace emails and names by aliases and scrub secrets (default true). */
  enabled?: boolean;
  /** Replace message content by its SHA-256 (`sha256:<hex>`), for cassettes that must not hold what people wrote. */
  hashContent?: boolean;
  /** Secrets to scrub wherever they appear (the bot's API key): each becomes `[secret]`. */
  secrets?: readonly string[];
  /** The server's site: its origin becomes `https://server.invalid` wherever it appears. */
  site?: string;
}

/** What a sanitized cassette says instead of the server's origin. */
export const ALIAS_SITE = "https://server.invalid";

/** The domain of every alias email: `user-3@example.invalid` (RFC 2606: never a real address). */
export const ALIAS_DOMAIN = "example.invalid";
const ALIAS_EMAIL = /^user-\d+@example\.invalid$/;
const ALIAS_NAME = /^User \d+$/;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const HASHED = /^sha256:[0-9a-f]{16}$/;
/** Keys whose string value is a secret, whatever it looks like. */
const SECRET_KEYS = new Set(["api_key", "apiKey", "password", "authorization", "otp"]);
/** Keys whose string value is a person's name. */
const NAME_KEYS = new Set(["full_name", "sender_full_name"]);
/** Keys whose value is the realm's own URL (`realm_uri` until feature level 257). */
const REALM_URL_KEYS = new Set(["realm_url", "realm_uri"]);
/** Keys whose string value is what someone wrote. */
const CONTENT_KEYS = new Set([
  "content",
  "rendered_content",
  "prev_content",
  "prev_rendered_content",
]);
/** A mention or quote of a person by name: `@**Name**`, `@_**Name|12**`. */
const MENTION = /(@_?\*\*)([^*|]+)((?:\|\d+)?\*\*)/g;
/** What `@**…**` names that is not a person: the wildcard mentions. */
const WILDCARDS = new Set(["all", "everyone", "stream", "channel", "topic"]);
/** Keys whose value says what a thing is (a cassette line's or an event's), never a name. */
const KINDS = new Set<string | undefined>(["type", "method", "endpoint", ...KEPT_HEADERS]);
/** Names shorter than this are not searched for inside text (they would hit ordinary words). */
const MIN_NAME_IN_TEXT = 4;

/** SHA-256 of a text, shortened: what a hashed cassette holds in place of content. */
export function hashText(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Replaces personal data consistently within one cassette: the same email always becomes the
 * same alias, so the bot's requests in a replay (built from aliased events) still match the
 * recorded ones. Aliases pass through unchanged, which makes sanitizing idempotent.
 */
export class Sanitizer {
  readonly enabled: boolean;
  readonly hashContent: boolean;
  readonly #secrets: string[];
  /** The server's addresses as [origin, host]: the site's, and a realm URL an answer tells if it differs. */
  readonly #origins: [string, string][] = [];
  readonly #emails = new Map<string, string>();
  readonly #names = new Map<string, string>();
  /** The names as they stand in JSON text (escaped), for `json`. */
  readonly #jsonNames = new Map<string, string>();
  /** Those of them replaced inside text too, not only as a whole string. */
  readonly #jsonInText = new Set<string>();
  #namePattern: RegExp | undefined;
  #jsonNamePattern: RegExp | undefined;
  /** Secrets and the server's addresses as JSON text, longest first, for `json`. */
  #jsonLiterals: RegExp | undefined;
  readonly #literalAliases = new Map<string, string>();

  constructor(options: SanitizeOptions = {}) {
    this.enabled = options.enabled ?? true;
    this.hashContent = options.hashContent ?? false;
    this.#secrets = (options.secrets ?? []).filter((s) => s.length >= 4);
    for (const secret of this.#secrets) this.#literalAliases.set(escapeJson(secret), "[secret]");
    if (options.site) this.#addSite(new URL(options.site));
    else this.#literalsChanged();
  }

  /** The realm URL an answer tells (`realm_url`, `realm_uri`), replaced from here on like the site. */
  #learnSite(address: string): void {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return;
    }
    this.#addSite(url);
  }

  /**
   * An address of the server, replaced from here on: the origin and its host alone (a realm's
   * URL, an avatar's or an upload's link). The site the bot was given, and the realm URL, which
   * differs when the bot reaches the server by another name (an internal address, a proxy).
   */
  #addSite(url: URL): void {
    if (
      url.origin === ALIAS_SITE ||
      url.host === "" ||
      this.#origins.some(([, h]) => h === url.host)
    )
      return;
    this.#origins.push([url.origin, url.host]);
    this.#literalAliases.set(escapeJson(url.origin), ALIAS_SITE);
    this.#literalAliases.set(escapeJson(url.host), "server.invalid");
    this.#literalsChanged();
  }

  #literalsChanged(): void {
    const literals = [...this.#literalAliases.keys()].sort((a, b) => b.length - a.length);
    this.#jsonLiterals =
      literals.length > 0 ? new RegExp(literals.map(escapeRegExp).join("|"), "g") : undefined;
  }

  email(email: string): string {
    if (ALIAS_EMAIL.test(email)) return email;
    const key = email.toLowerCase();
    let alias = this.#emails.get(key);
    if (!alias) {
      alias = `user-${this.#emails.size + 1}@${ALIAS_DOMAIN}`;
      this.#emails.set(key, alias);
    }
    return alias;
  }

  name(name: string): string {
    if (ALIAS_NAME.test(name) || name === "") return name;
    let alias = this.#names.get(name);
    if (!alias) {
      alias = `User ${this.#names.size + 1}`;
      this.#names.set(name, alias);
      const escaped = escapeJson(name);
      this.#jsonNames.set(escaped, alias);
      if (name.length >= MIN_NAME_IN_TEXT && !fitsOutsideStrings(escaped))
        this.#jsonInText.add(escaped);
      this.#namePattern = undefined;
      this.#jsonNamePattern = undefined;
    }
    return alias;
  }

  /** A sanitized copy of a JSON value (request fields, an answer's body). */
  value(value: unknown): unknown {
    if (!this.enabled && !this.hashContent) return value;
    if (this.enabled) this.#collectNames(value);
    return this.#walk(value, undefined);
  }

  /** Names first, so that a name is replaced in text that comes before its `full_name` field. */
  #collectNames(value: unknown): void {
    if (Array.isArray(value)) for (const item of value) this.#collectNames(item);
    else if (value !== null && typeof value === "object")
      for (const [key, item] of Object.entries(value)) {
        if (NAME_KEYS.has(key) && typeof item === "string") this.name(item);
        else if (REALM_URL_KEYS.has(key) && typeof item === "string") this.#learnSite(item);
        else if (typeof item === "string" && item.includes("**")) this.#mentioned(item);
        else if (typeof item === "object") this.#collectNames(item);
      }
  }

  #walk(value: unknown, key: string | undefined): unknown {
    if (typeof value === "string") return this.#string(value, key);
    if (Array.isArray(value)) return value.map((item) => this.#walk(item, key));
    if (value === null || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(value)) {
      const outKey = this.enabled && k.includes("@") ? this.text(k) : k;
      out[outKey] = this.#walk(item, k);
    }
    return out;
  }

  #string(value: string, key: string | undefined): string {
    if (this.hashContent && key !== undefined && CONTENT_KEYS.has(key))
      return HASHED.test(value) ? value : hashText(this.enabled ? this.text(value) : value);
    if (!this.enabled) return value;
    if (key !== undefined && SECRET_KEYS.has(key)) return value === "" ? value : "[secret]";
    if (key !== undefined && NAME_KEYS.has(key)) return this.name(value);
    return this.text(value);
  }

  /** A mention names a person (or a wildcard): learned as a name, as a sender's name is. */
  #mentioned(text: string): void {
    for (const match of text.matchAll(MENTION)) this.#person(match[2]!);
  }

  #person(name: string): void {
    if (!WILDCARDS.has(name.toLowerCase())) this.name(name);
  }

  /** Free text: secrets scrubbed, emails and known names replaced. */
  text(value: string): string {
    let out = value;
    for (const secret of this.#secrets)
      if (out.includes(secret)) out = out.replaceAll(secret, "[secret]");
    for (const [origin, host] of this.#origins)
      if (out.includes(host))
        out = out.replaceAll(origin, ALIAS_SITE).replaceAll(host, "server.invalid");
    if (out.includes("@")) out = out.replace(EMAIL, (email) => this.email(email));
    if (out.includes("**"))
      out = out.replace(MENTION, (whole, open: string, name: string, close: string) => {
        const alias = this.#names.get(name);
        return alias ? `${open}${alias}${close}` : whole;
      });
    const names = this.#pattern();
    if (names && this.#names.has(out)) return this.#names.get(out)!;
    if (names) out = out.replace(names, (name) => this.#names.get(name) ?? name);
    return out;
  }

  /**
   * Sanitizes JSON text as JSON.stringify writes it (one value or several lines of them): the same
   * rules as `value` on each, in a few scans of the whole text. Every name field anywhere in the
   * text is learned first, so a name is replaced in all of it, also before the line that told it.
   * Names are not replaced in keys (emails, secrets and the server's address are), nor in the
   * values that say what a thing is (`type`, `method`, `endpoint`, the kept headers).
   */
  json(text: string): string {
    if (!this.enabled && !this.hashContent) return text;
    if (this.enabled) {
      eachNameField(text, (name) => this.name(name));
      eachMentionName(text, (escaped) => this.#person(unescapeJson(escaped)));
      eachRealmUrl(text, (url) => this.#learnSite(url));
    }
    let out = text;
    if (this.hashContent)
      out = replaceContentFields(out, (content) =>
        HASHED.test(content) ? content : hashText(this.enabled ? this.text(content) : content),
      );
    if (!this.enabled) return out;
    out = replaceSecretFields(out);
    if (this.#jsonLiterals)
      out = replaceLiterals(out, this.#jsonLiterals, (found) => this.#literalAliases.get(found)!);
    out = replaceEmails(out, (email) => this.email(email));
    out = replaceMentions(out, (name) => this.#jsonNames.get(name));
    const names = this.#jsonPattern();
    if (names)
      out = replaceLiterals(out, names, (found, at, text) => {
        const whole = found.charCodeAt(0) === 34; /* a short name as a whole string: "Bo" */
        const inside = whole ? at + 1 : at;
        if (inKey(text, inside) || KINDS.has(keyOfValueAt(text, inside))) return found;
        const alias = this.#jsonNames.get(whole ? found.slice(1, -1) : found);
        return alias === undefined ? found : whole ? `"${alias}"` : escapeJson(alias);
      });
    return out;
  }

  /**
   * The names for `json`: those long enough found anywhere in strings, the others (and any that
   * could be mistaken for a number or true/false/null) only as a whole string.
   */
  #jsonPattern(): RegExp | undefined {
    if (this.#jsonNamePattern === undefined && this.#jsonNames.size > 0) {
      const inText: string[] = [];
      const whole: string[] = [];
      for (const escaped of this.#jsonNames.keys())
        (this.#jsonInText.has(escaped) ? inText : whole).push(escaped);
      inText.sort((a, b) => b.length - a.length);
      const alternatives = [
        ...(whole.length ? [`"(?:${whole.map(escapeRegExp).join("|")})"`] : []),
        ...inText.map(escapeRegExp),
      ];
      this.#jsonNamePattern = alternatives.length
        ? new RegExp(alternatives.join("|"), "g")
        : /(?!)/g;
    }
    return this.#jsonNamePattern;
  }

  #pattern(): RegExp | undefined {
    if (this.#namePattern === undefined && this.#names.size > 0) {
      const long = [...this.#names.keys()].filter((n) => n.length >= MIN_NAME_IN_TEXT);
      // Longest first, so that "Mia Member" wins over a "Mia" inside it.
      long.sort((a, b) => b.length - a.length);
      this.#namePattern = long.length ? new RegExp(long.map(escapeRegExp).join("|"), "g") : /(?!)/g;
    }
    return this.#namePattern;
  }
}
