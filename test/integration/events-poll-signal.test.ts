// The event loop's polls share one abort signal until one is aborted, and leave no listener on it.
import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type CallOptions } from "../../src/client/client.js";
import { EventQueue } from "../../src/inbound/event-queue.js";
import { sendToChannel } from "../../src/sandbox/send.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

/** Polls that bring a message each. */
const POLLS = 20;

describe("the polls' abort signal", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 30 });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it("is one for every poll over a real connection, with no listener left on it after each", async () => {
    const bot = sandbox.bot;
    const client = createClient({ site: sandbox.url, email: bot.email, apiKey: bot.apiKey });
    const signals = new Set<AbortSignal>();
    const listenersAfter: number[] = [];
    const events = client.events as { get: typeof client.events.get };
    const get = events.get;
    events.get = async (params: Parameters<typeof get>[0], options?: CallOptions) => {
      const signal = options!.signal!;
      signals.add(signal);
      try {
        return await get(params, options);
      } finally {
        listenersAfter.push(getEventListeners(signal, "abort").length);
      }
    };
    const queue = new EventQueue({ client, register: { event_types: ["message"] } });
    const { realm } = sandbox;
    const sender = realm.userByEmail(sandbox.user("mia").email)!;
    const channel = realm.channelByName("general")!;
    let received = 0;
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    await queue.start(() => {
      // One message a poll: the next is stored once this one is in.
      if (++received === POLLS) return done();
      setImmediate(() =>
        sendToChannel(realm, {
          sender,
          channel,
          topic: "t",
          content: `n ${received}`,
          client: "test",
        }),
      );
    });
    sendToChannel(realm, { sender, channel, topic: "t", content: "n 0", client: "test" });
    await Promise.race([
      all,
      new Promise((_, reject) => setTimeout(() => reject(new Error("not all in 20 s")), 20_000)),
    ]);
    await queue.stop();
    await client.close();

    expect(listenersAfter.length).toBeGreaterThanOrEqual(POLLS);
    expect(listenersAfter.every((n) => n === 0)).toBe(true);
    // The poll cut short by stop aborted the shared signal; none before it did.
    expect(signals.size).toBe(1);
  }, 30_000);
});
