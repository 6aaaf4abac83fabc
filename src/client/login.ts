// Logging in with a username and password instead of an API key: POST /fetch_api_key, then a client.
import { endpoints } from "../api/index.js";
import { createClient, type ApiClient, type ClientOptions } from "./client.js";

export interface PasswordLoginOptions extends Omit<ClientOptions, "email" | "apiKey"> {
  /** Usually the email address; an LDAP username where the server uses LDAP. */
  username: string;
  password: string;
}

/**
 * Fetches the account's API key with its password and returns a client logged in with it.
 * Fails with `ApiError` (`AUTHENTICATION_FAILED` on real servers and the sandbox) when the
 * credentials are refused; the password never appears in errors.
 *
 * @example
 * const client = await loginWithPassword({ site: "https://chat.example.com", username: "me@example.com", password });
 * const me = await client.users.me();
 */
export async function loginWithPassword(options: PasswordLoginOptions): Promise<ApiClient> {
  const { username, password, ...rest } = options;
  // fetch_api_key sends no credentials, so this short-lived client needs no key.
  const anonymous = createClient({ ...rest, email: username, apiKey: "" });
  try {
    const { api_key, email } = await anonymous.call(endpoints.auth.fetchApiKey, {
      username,
      password,
    });
    return createClient({ ...rest, email, apiKey: api_key });
  } finally {
    await anonymous.close();
  }
}
