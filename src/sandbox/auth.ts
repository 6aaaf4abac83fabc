// Who is asking: HTTP Basic credentials checked against the realm, with the server's error codes.
import type { IncomingHttpHeaders } from "node:http";
import type { Realm, SandboxUser } from "./realm.js";
import { SandboxError } from "./errors.js";

export interface Credentials {
  email: string;
  apiKey: string;
}

/** Parses `Authorization: Basic base64(email:key)`; undefined when absent. */
export function parseBasicAuth(headers: IncomingHttpHeaders): Credentials | undefined {
  const header = headers.authorization;
  if (!header) return undefined;
  const match = /^Basic\s+(\S+)$/i.exec(header);
  if (!match)
    throw new SandboxError("UNAUTHORIZED", "Only Basic authentication is supported", {
      status: 401,
    });
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0)
    throw new SandboxError("UNAUTHORIZED", "Invalid Basic credentials", { status: 401 });
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

/** The user the credentials belong to, or the error the server would give. */
export function authenticate(realm: Realm, credentials: Credentials): SandboxUser {
  if (realm.deactivated)
    throw new SandboxError("REALM_DEACTIVATED", "This organization has been deactivated", {
      status: 401,
    });
  const user = realm.userByEmail(credentials.email);
  if (!user || user.apiKey !== credentials.apiKey) {
    throw new SandboxError("INVALID_API_KEY", "Invalid API key", { status: 401 });
  }
  if (!user.isActive)
    throw new SandboxError("USER_DEACTIVATED", "Account is deactivated", { status: 401 });
  return user;
}

export const notLoggedIn = (): SandboxError =>
  new SandboxError("UNAUTHORIZED", "Not logged in: API authentication or user session required", {
    status: 401,
  });
