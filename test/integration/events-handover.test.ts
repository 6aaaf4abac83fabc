// A poll that returns thousands of events is handed to the sink in small slices, in order, and taken slices are let go.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyEvent } from "../../src/api/events.js";
import { createClient } from "../../src/client/client.js";
import { EventQueue, HANDOVER_SLICE } from "../../src/inbound/event-queue.js";
import { sendToChannel } from "../../src/sandbox/send.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

/** Messages stored at once, so that one poll returns all of them. */
const BURST = 2_000;

setFlagsFromString("--expose-gc");
/** A full, synchronous garbage collection (the flag above makes `gc` available to new contexts). */
const collect = runInNewContext("gc") as () => void;

describe("one poll with thousands of events", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 30 });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it("reaches the sink in slices of at most HANDOVER_SLICE, in order, and earlier slices are released", async () => {
    const bot = sandbox.bot;
    const client = createClient({ site: sandbox.url, email: bot.email, apiKey: bot.apiKey });
    const queue = new EventQueue({ client, register: { event_types: ["message"] } });
    const sizes: number[] = [];
    const ids: number[] = [];
    let firstSlice: WeakRef<AnyEvent>[] = [];
    let releasedBeforeLast: boolean | undefined;
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    await queue.start(async (events) => {
      sizes.push(events.length);
      for (const e of events) ids.push((e as unknown as { message: { id: number } }).message.id);
      if (sizes.length === 1) firstSlice = events.map((e) => new WeakRef(e));
      if (ids.length === BURST) {
        // The first slice was handed over long ago: nothing but these WeakRefs may hold it now.
        await new Promise((resolve) => setImmediate(resolve));
        collect();
        releasedBeforeLast = firstSlice.every((ref) => ref.deref() === undefined);
        done();
      }
    });
    // Stored synchronously, before the sandbox can answer the first poll: one poll gets them all.
    const { realm } = sandbox;
    const sender = realm.userByEmail(sandbox.user("mia").email)!;
    const channel = realm.channelByName("general")!;
    for (let i = 0; i < BURST; i++)
      sendToChannel(realm, { sender, channel, topic: "burst", content: `n ${i}`, client: "test" });
    await Promise.race([
      all,
      new Promise((_, reject) => setTimeout(() => reject(new Error("not all in 30 s")), 30_000)),
    ]);
    await queue.stop();
    await client.close();

    expect(ids).toHaveLength(BURST);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(HANDOVER_SLICE);
    expect(sizes.length).toBeGreaterThanOrEqual(Math.ceil(BURST / HANDOVER_SLICE));
    expect(releasedBeforeLast).toBe(true);
  }, 60_000);
});
