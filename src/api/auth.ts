// Authentication on the wire: trading a username and password for an API key.
import { z } from "zod";
import { int, str } from "./leaves.js";
import { endpoint } from "./endpoint.js";

/**
 * POST /fetch_api_key: no credentials needed; answers the account's API key, API email and ID.
 * Useful only where the organization allows email/password or LDAP login.
 */
export const fetchApiKey = endpoint({
  method: "POST",
  path: "/fetch_api_key",
  params: () => z.object({ username: str, password: str }),
  response: () =>
    z.looseObject({
      api_key: str,
      email: str,
      user_id: int,
    }),
  auth: "none",
  idempotent: true,
});

export const authEndpoints = { fetchApiKey } as const;
