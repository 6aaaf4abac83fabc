// Who is asking: HTTP Basic credentials or a password checked against the realm, with the server's error codes.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { Realm } from "./realm.js";
import type { SandboxUser } from "./model.js";
import { SandboxError } from "./errors.js";
import { findUserByEmail } from "./emailVisibility.js";

export interface Credentials {
  email: string;
  apiKey: string;
}

/** How many recent headers and keys the caches below hold before they start afresh. */
const RECENT_KEYS = 1024;

/**
 * Credentials of the `Authorization` headers seen lately. A fast path: a client sends the same
 * header on every request, and decoding it (regex, base64, split) is a share of a small request.
 * A malformed header is not kept: it throws each time.
 */
const recentCredentials = new Map<string, Readonly<Credentials>>();

/** Parses `Authorization: Basic base64(email:key)`; undefined when absent. Shared and frozen: read, not changed. */
export function parseBasicAuth(headers: IncomingHttpHeaders): Readonly<Credentials> | undefined {
  const header = headers.authorization;
  if (!header) return undefined;
  const known = recentCredentials.get(header);
  if (known) return known;
  const parsed = Object.freeze(decodeBasicAuth(header));
  if (recentCredentials.size >= RECENT_KEYS) recentCredentials.clear();
  recentCredentials.set(header, parsed);
  return parsed;
}

/** Decodes a Basic `Authorization` header, or throws the 401 the server gives for a malformed one. */
function decodeBasicAuth(header: string): Credentials {
  // As the server's authenticated_rest_api_view: another scheme is a 400, a malformed one a 401.
  const [scheme, encoded, ...rest] = header.trim().split(/\s+/);
  if (encoded !== undefined && rest.length === 0 && scheme!.toLowerCase() !== "basic")
    throw new SandboxError("BAD_REQUEST", "This endpoint requires HTTP basic authentication.");
  const decoded = encoded ? Buffer.from(encoded, "base64").toString("utf8") : "";
  const colon = decoded.indexOf(":");
  if (!encoded || rest.length > 0 || colon < 0)
    throw new SandboxError("UNAUTHORIZED", "Invalid authorization header for basic auth", {
      status: 401,
      headers: { "WWW-Authenticate": 'Basic realm="zulip"' },
    });
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

const digest = (secret: string): Buffer => createHash("sha256").update(secret).digest();

/** Compares secrets in constant time (hashing first evens out the lengths). */
function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * SHA-256 digests of the API keys seen lately. A fast path: hashing is the costliest step of
 * authenticating a request, and a client presents the same key on every request. Bounded, so
 * keys guessed at random cannot grow it without end.
 */
const recentKeyDigests = new Map<string, Buffer>();

function keyDigest(apiKey: string): Buffer {
  let known = recentKeyDigests.get(apiKey);
  if (known === undefined) {
    if (recentKeyDigests.size >= RECENT_KEYS) recentKeyDigests.clear();
    known = digest(apiKey);
    recentKeyDigests.set(apiKey, known);
  }
  return known;
}

/** Whether `presented` is `user`'s API key, compared in constant time like `sameSecret`. */
const isApiKeyOf = (user: SandboxUser, presented: string): boolean =>
  timingSafeEqual(keyDigest(user.apiKey), keyDigest(presented));

/** `REALM_DEACTIVATED` (HTTP 401). */
export const realmDeactivated = (): SandboxError =>
  new SandboxError("REALM_DEACTIVATED", "This organization has been deactivated", {
    status: 401,
  });

/** `USER_DEACTIVATED` (HTTP 401). */
export const userDeactivated = (): SandboxError =>
  new SandboxError("USER_DEACTIVATED", "Account is deactivated", { status: 401 });

/** Frozen credentials whose API key has the right form, so the check is not made again for them. */
const wellFormed = new WeakSet<Readonly<Credentials>>();

/**
 * The user the credentials belong to, or the error the server would give: `REALM_DEACTIVATED`,
 * `INVALID_API_KEY` or `USER_DEACTIVATED`, all HTTP 401. The username may be the real email or
 * the API email (the placeholder of a user whose real email is hidden).
 */
export function authenticate(realm: Realm, credentials: Credentials): SandboxUser {
  if (realm.deactivated) throw realmDeactivated();
  // As the server's access_user_by_api_key: a key not of 32 letters and digits is malformed.
  if (!wellFormed.has(credentials) && !/^[a-zA-Z0-9]{32}$/.test(credentials.apiKey.trim()))
    throw new SandboxError("INVALID_API_KEY", "Malformed API key", { status: 401 });
  const user =
    findUserByEmail(realm, undefined, credentials.email) ?? realm.userByEmail(credentials.email);
  if (!user || !isApiKeyOf(user, credentials.apiKey.trim())) {
    throw new SandboxError("INVALID_API_KEY", "Invalid API key", { status: 401 });
  }
  if (!user.isActive) throw userDeactivated();
  // Frozen credentials (a recent header's) are checked once; the user behind them is looked up every time.
  if (Object.isFrozen(credentials)) wellFormed.add(credentials);
  return user;
}

/**
 * Checks a username and password (POST /fetch_api_key). A wrong password, an unknown user, a
 * deactivated user and a bot (which has no password) all get the same `AUTHENTICATION_FAILED`.
 */
export function authenticatePassword(
  realm: Realm,
  username: string,
  password: string,
): SandboxUser {
  if (realm.deactivated) throw realmDeactivated();
  const user =
    realm.userByEmail(username.trim()) ?? findUserByEmail(realm, undefined, username.trim());
  const ok =
    user !== undefined &&
    user.password !== null &&
    sameSecret(user.password, password) &&
    user.isActive;
  if (!ok)
    throw new SandboxError("AUTHENTICATION_FAILED", "Your username or password is incorrect", {
      status: 401,
    });
  return user;
}

export const notLoggedIn = (): SandboxError =>
  new SandboxError("UNAUTHORIZED", "Not logged in: API authentication or user session required", {
    status: 401,
    // As the server's UnauthorizedError on API paths: clients are asked for Basic credentials.
    headers: { "WWW-Authenticate": 'Basic realm="zulip"' },
  });
