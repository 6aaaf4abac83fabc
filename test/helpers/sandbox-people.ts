// Speaking as the sandbox's seeded people in integration tests: one client per handle, closed together, and the ApiError a refused call fails with.
import { ApiError, createClient, type ApiClient } from "../../src/client/index.js";
import type { Sandbox } from "../../src/sandbox/index.js";

export interface SandboxPeople {
  /** The client of a seeded person (`mia`, `olivia`, ...), made on first use; no retries. */
  as(handle: string): ApiClient;
  /** Closes every client made. */
  close(): Promise<void>;
}

/** Clients for the people of the sandbox `sandbox()` returns (read when a client is first made). */
export function sandboxPeople(sandbox: () => Sandbox): SandboxPeople {
  const clients = new Map<string, ApiClient>();
  return {
    as(handle) {
      let client = clients.get(handle);
      if (!client) {
        const account = sandbox().user(handle);
        client = createClient({
          site: sandbox().url,
          email: account.email,
          apiKey: account.apiKey,
          retry: { maxAttempts: 1 },
        });
        clients.set(handle, client);
      }
      return client;
    },
    async close() {
      await Promise.all([...clients.values()].map((c) => c.close()));
      clients.clear();
    },
  };
}

/** The ApiError `call` fails with; a test failure when it succeeds or fails otherwise. */
export async function apiFailure(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}
