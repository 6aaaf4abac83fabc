// A poll of thousands of events is read as the bot takes them: while the sink waits, the socket is not read on and nothing is lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, type Dispatcher } from "undici";
import { createClient } from "../../src/client/client.js";
import { EventQueue, HANDOVER_SLICE } from "../../src/inbound/event-queue.js";
import { sendToChannel } from "../../src/sandbox/send.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";
import { captureLog } from "../helpers/log.js";

/** Messages stored at once, so that one poll answers with all of them (about 2.2 MB of JSON). */
const BURST = 5_000;
/** How long the sink holds its first slice: longer than the watchdog, which must not count it. */
const HOLD_MS = 1_500;
const WATCHDOG_MS = 1_000;

/** A keep-alive agent that counts the bytes of GET /events bodies undici hands to the client. */
function countingAgent(): { agent: Dispatcher; bytes: () => number } {
  let bytes = 0;
  const agent = new Agent().compose(
    (dispatch) => (options, handler) =>
      dispatch(
        options,
        !String(options.path).includes("/events?")
          ? handler
          : new Proxy(handler, {
              get(target, key) {
                const value = Reflect.get(target, key) as unknown;
                if (typeof value !== "function") return value;
                if (key === "onData")
                  return (chunk: Buffer) => {
                    bytes += chunk.length;
                    return (value as (c: Buffer) => boolean).call(target, chunk);
                  };
                if (key === "onResponseData")
                  return (controller: unknown, chunk: Buffer) => {
                    bytes += chunk.length;
                    return (value as (c: unknown, b: Buffer) => void).call(
                      target,
                      controller,
                      chunk,
                    );
                  };
                return (value as (...args: unknown[]) => unknown).bind(target);
              },
            }),
      ),
  );
  return { agent, bytes: () => bytes };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("backpressure on a large poll", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 30 });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it("stops reading the body while the sink waits, does not time the wait out, and loses nothing", async () => {
    const bot = sandbox.bot;
    const { agent, bytes } = countingAgent();
    const client = createClient({
      site: sandbox.url,
      email: bot.email,
      apiKey: bot.apiKey,
      dispatcher: agent,
    });
    const log = captureLog();
    const queue = new EventQueue({
      client,
      register: { event_types: ["message"] },
      watchdogMs: WATCHDOG_MS,
      logger: log.logger,
    });
    const ids: number[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstTaken!: () => void;
    const taken = new Promise<void>((resolve) => (firstTaken = resolve));
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    const { realm } = sandbox;
    const sender = realm.userByEmail(sandbox.user("mia").email)!;
    const channel = realm.channelByName("general")!;
    await queue.start(
      async (events) => {
        for (const e of events) ids.push((e as unknown as { message: { id: number } }).message.id);
        if (ids.length === events.length) {
          // The first slice: the bot is "full" until the test lets it go on.
          firstTaken();
          await released;
        }
        if (ids.length >= BURST) done();
      },
      {
        // Stored once the queue exists and before its first poll, so that the poll answers at once
        // with all of them (storing takes seconds on a loaded machine, longer than the watchdog).
        onRegistered() {
          for (let i = 0; i < BURST; i++)
            sendToChannel(realm, {
              sender,
              channel,
              topic: "burst",
              content: `n ${i}`,
              client: "test",
            });
        },
      },
    );
    const answered = await Promise.race([taken.then(() => true), wait(20_000).then(() => false)]);
    expect(answered).toBe(true);

    // The sink holds its slice past the watchdog; meanwhile the client reads at most what the
    // stream's buffers take (tens of kilobytes), never the rest of the poll.
    await wait(HOLD_MS);
    const whileHeld = { bytes: bytes(), handed: ids.length };
    release();
    const finished = await Promise.race([all.then(() => true), wait(30_000).then(() => false)]);
    const total = bytes();
    await queue.stop();
    await client.close();
    await agent.close();

    expect(finished).toBe(true);
    expect(whileHeld.handed).toBeLessThanOrEqual(HANDOVER_SLICE);
    expect(total).toBeGreaterThan(2_000_000);
    expect(whileHeld.bytes).toBeLessThan(total / 4);
    expect(ids).toHaveLength(BURST);
    expect(new Set(ids).size).toBe(BURST);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(log.lines().filter((l) => l.msg === "poll abandoned; polling again")).toEqual([]);
  }, 60_000);
});
