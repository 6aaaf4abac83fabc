import { describe, expect, it } from "vitest";
import { EventEmitter } from "eventemitter3";
import type { AnyEvent } from "../../src/api/events.js";
import type { Message } from "../../src/api/messages.js";
import type { ApiClient } from "../../src/client/client.js";
import { silentLogger } from "../../src/log/logger.js";
import { Intake } from "../../src/inbound/intake.js";
import { DeliveryLedger } from "../../src/inbound/ledger.js";
import type { DeliveryState, DeliveryStore } from "../../src/state/delivery/store.js";
import { Dispatcher } from "../../src/dispatch/dispatcher.js";
import { messageEvent as inMemoryMessageEvent } from "../helpers/in-memory-bot.js";

/** A channel message from user 7 in `topic`. */
const messageEvent = (id: number, topic: string): AnyEvent =>
  inMemoryMessageEvent(id, 7, topic, `message ${id}`);

/** A delivery store whose watermark saves wait until `release()` is called. */
function heldStore() {
  const saved: DeliveryState[] = [];
  let releases: (() => void)[] = [];
  const store: DeliveryStore = {
    load: () => Promise.resolve({ watermark: undefined, replies: [] }) as never,
    saveWatermark: (state) =>
      new Promise<void>((resolve) =>
        releases.push(() => {
          saved.push(state);
          resolve();
        }),
      ),
    intend: () => Promise.resolve(),
    sent: () => Promise.resolve(),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  const release = () => {
    const now = releases;
    releases = [];
    for (const r of now) r();
  };
  return { store, saved, release, waiting: () => releases.length };
}

function intakeWith(
  dispatcher: Dispatcher,
  ledger: DeliveryLedger,
  handle: (message: Message) => Promise<void>,
) {
  return new Intake({
    api: {} as ApiClient,
    log: silentLogger(),
    bus: new EventEmitter(),
    dispatcher,
    ledger,
    handle: (message) => handle(message),
    narrows: [],
    me: () => undefined,
    catchUpWindow: false,
    now: () => Date.now(),
  });
}

async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
}

describe("Intake", () => {
  it("moves a conversation on without waiting for the ledger's save, and never saves past an unfinished message", async () => {
    const { store, saved, release, waiting } = heldStore();
    const ledger = new DeliveryLedger({ store });
    const dispatcher = new Dispatcher({ concurrency: 4, maxQueued: 100 });
    const handled: number[] = [];
    let releaseSlow!: () => void;
    const slow = new Promise<void>((resolve) => (releaseSlow = resolve));
    const intake = intakeWith(dispatcher, ledger, async (message) => {
      if (message.id === 1) await slow;
      handled.push(message.id);
    });
    const signal = new AbortController().signal;

    // Message 1 (topic a) stays running; 2, 3 and 4 (topic b, one lane) follow each other.
    await intake.sink([messageEvent(1, "a"), messageEvent(2, "b"), messageEvent(3, "b")], signal);
    await intake.sink([messageEvent(4, "b")], signal);
    // The save of 2's finish has not ended (it may not even have started), yet 3 and 4 ran after
    // it in the same lane.
    await until(() => handled.length === 3, "messages 2, 3 and 4");
    expect(handled).toEqual([2, 3, 4]);
    expect(saved).toEqual([]);
    await until(() => waiting() > 0, "the save of the finished messages");
    release();
    await ledger.settled();
    // 1 is unfinished: the watermark stays below it, 2–4 are remembered above it.
    expect(saved.at(-1)).toEqual({ lastHandledId: 0, handledAbove: [2, 3, 4] });

    releaseSlow();
    await dispatcher.whenIdle();
    await until(() => waiting() > 0, "the save of message 1's finish");
    release();
    await ledger.settled();
    expect(saved.at(-1)).toEqual({ lastHandledId: 4, handledAbove: [] });
  });

  it("adds one abort listener per batch while the dispatcher is full, not one per message", async () => {
    const { store } = heldStore();
    const ledger = new DeliveryLedger({
      store: { ...store, saveWatermark: () => Promise.resolve() },
    });
    const dispatcher = new Dispatcher({ concurrency: 1, maxQueued: 1 });
    const handled: number[] = [];
    const intake = intakeWith(dispatcher, ledger, async (message) => {
      await new Promise((r) => setImmediate(r));
      handled.push(message.id);
    });
    const controller = new AbortController();
    const { signal } = controller;
    let added = 0;
    let removed = 0;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed++;
      remove(...args);
    }) as typeof remove;

    const batch = Array.from({ length: 20 }, (_, i) => messageEvent(i + 1, "a"));
    await intake.sink(batch, signal);
    await dispatcher.whenIdle();
    expect(handled).toEqual(batch.map((e) => e.id));
    expect(added).toBe(1);
    expect(removed).toBe(1);
  });

  it("finishes the bot's own messages without handing them to the pipeline, and counts them handled", async () => {
    const { store, saved, release, waiting } = heldStore();
    const ledger = new DeliveryLedger({ store });
    const dispatcher = new Dispatcher({ concurrency: 4, maxQueued: 100 });
    const handled: number[] = [];
    const seen: number[] = [];
    let ownCounted = 0;
    const bus = new EventEmitter();
    bus.on("message", (event: { message: Message }) => seen.push(event.message.id));
    const intake = new Intake({
      api: {} as ApiClient,
      log: silentLogger(),
      bus,
      dispatcher,
      ledger,
      handle: async (message) => {
        handled.push(message.id);
      },
      narrows: [],
      me: () => 99,
      ownMessageHandled: () => ownCounted++,
      catchUpWindow: false,
      now: () => Date.now(),
    });
    const own = (id: number): AnyEvent => {
      const event = messageEvent(id, "a") as unknown as { message: Record<string, unknown> };
      event.message.sender_id = 99;
      return event as unknown as AnyEvent;
    };
    await intake.sink([messageEvent(1, "a"), own(2), messageEvent(3, "a"), own(4)], signal());
    await dispatcher.whenIdle();
    expect(handled).toEqual([1, 3]);
    // Plugins listening on the bus see every message, the bot's own too.
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(ownCounted).toBe(2);
    await until(() => waiting() > 0, "the watermark's save");
    release();
    await ledger.settled();
    expect(saved.at(-1)).toEqual({ lastHandledId: 4, handledAbove: [] });
    // Seen again (a replayed poll), an own message is dropped like any other.
    await intake.sink([own(4)], signal());
    expect(ownCounted).toBe(2);
  });

  it("does not re-read the newest message at the catch-up right after its baseline, but does at later ones", async () => {
    const store: DeliveryStore = {
      load: () => Promise.resolve({ watermark: undefined, replies: [] }) as never,
      saveWatermark: () => Promise.resolve(),
      intend: () => Promise.resolve(),
      sent: () => Promise.resolve(),
      flush: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const ledger = new DeliveryLedger({ store });
    const reads: unknown[] = [];
    const warnings: string[] = [];
    // The server's newest message is 40 at the baseline, then (a reset server) 3.
    let newest = 40;
    const api = {
      messages: {
        list: (params: unknown) => {
          reads.push(params);
          return Promise.resolve({ messages: [{ id: newest }] });
        },
      },
    } as unknown as ApiClient;
    const log = { ...silentLogger(), warn: (_: unknown, msg: string) => warnings.push(msg) };
    const intake = new Intake({
      api,
      log: log as never,
      bus: new EventEmitter(),
      dispatcher: new Dispatcher({ concurrency: 1, maxQueued: 10 }),
      ledger,
      handle: () => Promise.resolve(),
      narrows: [[]],
      me: () => 99,
      catchUpWindow: false,
      now: () => Date.now(),
    });
    await intake.baseline();
    expect(ledger.lastHandledId).toBe(40);
    expect(reads).toHaveLength(1);
    // The first registration's catch-up: the watermark is what the server said a moment ago.
    await intake.catchUp(signal());
    expect(reads).toHaveLength(1);
    // A later registration's (the queue was lost, the server reset meanwhile): checked again.
    newest = 3;
    await intake.catchUp(signal());
    expect(reads).toHaveLength(2);
    expect(warnings.join("\n")).toMatch(/the newest message on the server is 3/);
  });
});

function signal(): AbortSignal {
  return new AbortController().signal;
}
