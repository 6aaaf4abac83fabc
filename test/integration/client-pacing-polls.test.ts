// The client's pacing holds a bot within the server's rate limits: its sends, and its long poll (a budget of its own) beside them.
import { afterEach, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";
import { createClient, type ApiClient } from "../../src/client/client.js";
import { Pacer, resetTime } from "../../src/client/pacing.js";

/** Counts `userId`'s requests and refusals at the sandbox's rate limiter, by bucket. */
function countRequests(sandbox: Sandbox, userId: number) {
  const limiter = sandbox.rateLimiter!;
  const counts = { api: 0, events: 0, refused: { api: 0, events: 0 } };
  const check = limiter.check.bind(limiter);
  limiter.check = (id, bucket = "api") => {
    if (id !== userId) return check(id, bucket);
    counts[bucket]++;
    try {
      return check(id, bucket);
    } catch (error) {
      counts.refused[bucket]++;
      throw error;
    }
  };
  return counts;
}

describe("pacing with a long poll running", () => {
  let sandbox: Sandbox | undefined;
  let client: ApiClient | undefined;
  afterEach(async () => {
    await client?.close();
    await sandbox?.close();
  });

  it("sends 40 messages one after another, each answered on the poll, with none refused", async () => {
    sandbox = await startSandbox({ rateLimit: { requests: 10, windowSeconds: 1 } });
    client = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
      retry: { maxAttempts: 20 },
    });
    const queue = await client.events.register({ event_types: ["message"] });
    // The window starts empty: the registration is not part of the measure.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const counts = countRequests(sandbox, sandbox.bot.userId);
    let lastEventId = queue.last_event_id;
    let stop = false;
    const poller = (async () => {
      for (let polls = 0; !stop && polls < 500; polls++) {
        const { events } = await client!.events.get({
          queue_id: queue.queue_id!,
          last_event_id: lastEventId,
        });
        for (const event of events) lastEventId = Math.max(lastEventId, event.id);
      }
    })();
    for (let i = 0; i < 40; i++)
      await client.messages.send({
        type: "channel",
        to: "general",
        topic: "pace",
        content: `m${i}`,
      });
    stop = true;
    await client.messages.send({ type: "channel", to: "general", topic: "pace", content: "end" });
    await poller;
    // Every send is answered on the poll: about as many polls as sends, none refused.
    expect(counts.refused).toEqual({ api: 0, events: 0 });
    expect(counts.api).toBe(41);
    expect(counts.events).toBeGreaterThan(20);
  }, 60_000);
});

describe("Pacer and out-of-order responses", () => {
  // Fractional resets are taken as they are; whole seconds (the server's) count to the end of the second.
  const now = 1_000_000;
  const at = (ms: number) => (now + ms + 0.25) / 1000;

  it("does not take back requests from an older response's headers", () => {
    const pacer = new Pacer({ now: () => now });
    // A fresh response: 1 left until the window clears 2 s from now.
    pacer.observe({ remaining: 1, reset: at(2000) });
    // A request counted a second earlier answers now: its numbers are stale.
    pacer.observe({ remaining: 5, reset: at(1000) });
    expect(pacer.beforeRequest("POST /messages")).toBeUndefined();
    expect(Math.round(pacer.delay())).toBe(2000);
    // Same window: the lower count holds (a request in flight is not in the other's number).
    pacer.observe({ remaining: 3, reset: at(2000) });
    expect(Math.round(pacer.delay())).toBe(2000);
    // A later window is news: its numbers replace ours.
    pacer.observe({ remaining: 3, reset: at(3000) });
    expect(pacer.delay()).toBe(0);
  });

  it("reads a whole-second X-RateLimit-Reset (truncated by the server) as the end of that second", () => {
    expect(resetTime(1_000)).toBe(1_001_000);
    expect(resetTime(1_000.25)).toBe(1_000_250);
  });
});
