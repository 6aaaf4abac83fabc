// Test helpers for reliability tests: post as a human straight into the realm (past HTTP faults), wait for conditions.
import type { Sandbox } from "../../src/sandbox/server.js";

/** Posts a channel message as `handle` without HTTP, so faults injected on routes do not touch it. */
export function post(
  sandbox: Sandbox,
  content: string,
  { as = "mia", channel = "general", topic = "test" } = {},
): number {
  const realm = sandbox.realm;
  const sender = realm.users.get(sandbox.user(as).userId)!;
  const target = realm.channelByName(channel);
  if (!target) throw new Error(`no channel ${channel}`);
  return realm.postMessage({ sender, kind: "stream", channel: target, topic, content }).id;
}

/** Resolves once `check` is true; fails after `timeoutMs` with `what` in the message. */
export async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A promise with its resolve function, so a test decides when a handler may finish. */
export function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}
