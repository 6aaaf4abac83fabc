// Test helper: a real bot against a sandbox over loopback, with a way to wait (bounded) for its posts.
import { createBot, type Bot } from "../../src/bot/bot.js";
import type { BotOptions } from "../../src/bot/options.js";
import type { Sandbox } from "../../src/sandbox/server.js";
import type { StoredMessage } from "../../src/sandbox/model.js";

/** A bot logged in to `sandbox` as its bot account; no signals, no rate limit. */
export function sandboxBot(sandbox: Sandbox, options: Omit<BotOptions, "server"> = {}): Bot {
  return createBot({
    server: { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey },
    handleSignals: false,
    rateLimit: false,
    ...options,
  });
}

/** Resolves with the first message after index `from` that `match` accepts; fails after `timeoutMs`. */
export async function waitForMessage(
  sandbox: Sandbox,
  from: number,
  match: (m: StoredMessage) => boolean,
  timeoutMs = 5_000,
): Promise<StoredMessage> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = sandbox.realm.messages.slice(from).find(match);
    if (found) return found;
    if (Date.now() > deadline) {
      const seen = sandbox.realm.messages.slice(from).map((m) => `${m.topic}: ${m.content}`);
      throw new Error(`no matching message within ${timeoutMs} ms; saw:\n${seen.join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits (bounded) until `check` holds. */
export async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
