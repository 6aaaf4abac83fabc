import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as nodeFs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SendParams } from "../../src/api/messages.js";
import type { Logger } from "../../src/log/logger.js";
import type { SentIds } from "../../src/context/actions.js";
import type { MessageContext } from "../../src/context/context.js";
import { FileDeliveryStore } from "../../src/state/delivery/file.js";
import { KeyValueDeliveryStore } from "../../src/state/delivery/key-value.js";
import { LoopGuard } from "../../src/outbound/loop-guard.js";
import type { Outbox } from "../../src/outbound/outbox.js";
import { ReplyGuard } from "../../src/outbound/reply-guard.js";
import type { DeliveryStore } from "../../src/state/delivery/store.js";
import type { JournalFs } from "../../src/state/journal.js";
import { createMemoryStore } from "../../src/state/key-value/store.js";
import { directoryOf, humanAndBot } from "../helpers/fixtures.js";

// The reply guard's one exactly-once path, over a store that takes outcomes synchronously (the file
// journal's `sentNow`) and over the same store without it: the same posts, outcomes, loop-guard
// refusals, storage reports and journal, with every intent on disk before its post. One script
// runs through both.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const HUMAN = 7;
const OTHER_BOT = 9;
const users = humanAndBot(HUMAN, OTHER_BOT);

/** What one run saw: its events in order, the journal as reloaded, and posts made in the guard's turn. */
async function run(fast: boolean): Promise<{ events: string[]; journal: unknown }> {
  const dir = mkdtempSync(join(tmpdir(), "topicbot-guard-fast-"));
  dirs.push(dir);
  const path = join(dir, "j.jsonl");
  let diskFull = false;
  const fs: JournalFs = {
    ...nodeFs,
    writeSync: ((...args: unknown[]) => {
      if (diskFull) throw new Error("ENOSPC: no space left on device, write");
      return (nodeFs.writeSync as (...a: unknown[]) => number)(...args);
    }) as typeof nodeFs.writeSync,
  };
  const file = await FileDeliveryStore.open({ path, fs });
  // As a first start does before it takes any event: a journal with replies has a watermark.
  await file.saveWatermark({ lastHandledId: 0, handledAbove: [] });
  // The same file store without its synchronous methods.
  const store: DeliveryStore = fast
    ? file
    : {
        load: () => file.load(),
        saveWatermark: (s) => file.saveWatermark(s),
        intend: (i) => file.intend(i),
        sent: (id, n, ids) => file.sent(id, n, ids),
        flush: () => file.flush(),
        close: () => file.close(),
      };
  const events: string[] = [];
  const log = {
    warn: (_: unknown, msg: string) => events.push(`warn: ${msg}`),
    info: (_: unknown, msg: string) => events.push(`info: ${msg}`),
  } as unknown as Logger;
  const directory = directoryOf(users);
  const outbox: Outbox = {
    send: () => Promise.reject(new Error("the guard posts through the context's post")),
    landed: async () => undefined,
    confirm: () => undefined,
  };
  const guard = new ReplyGuard({
    store,
    outbox,
    directory,
    loopGuard: new LoopGuard({ maxMessages: 3, windowMs: 60_000, pauseMs: 60_000, now: () => 5 }),
    server: () => ({ featureLevel: 400, maxMessageLength: 20 }),
    floor: () => 50,
    now: () => 1_000,
    log,
    onStorageError: (error) => events.push(`storage error: ${(error as Error).message}`),
    onStorageOk: () => events.push("storage ok"),
  });

  let nextId = 100;
  /** One reply or send through the guard; its outcome, or its error, goes into `events`. */
  async function reply(
    incomingId: number,
    sender: number,
    n: number,
    content: string,
    how: { kind?: "reply" | "send"; where?: string; fail?: boolean; badTarget?: boolean } = {},
  ): Promise<void> {
    const ctx = {
      message: { id: incomingId, sender_id: sender },
      plugin: "echo",
    } as unknown as MessageContext;
    const post = (): Promise<SentIds> => {
      // What a SIGKILL at the moment of sending would leave on disk.
      const onDisk = readFileSync(path, "utf8").includes(`"incomingId":${incomingId},"index":${n}`);
      events.push(`post ${incomingId}/${n} "${content}" intent on disk: ${onDisk}`);
      if (how.fail) return Promise.reject(new Error(`post ${incomingId}/${n} failed`));
      const id = nextId++;
      return Promise.resolve({ id, ids: [id] });
    };
    const params = (): SendParams => {
      if (how.badTarget) throw new TypeError("send: bad target");
      return { type: "channel", to: 1, topic: how.where ?? "t", content };
    };
    const sent = guard.guard(ctx, n, {
      kind: how.kind ?? "reply",
      willEdit: false,
      where: () => how.where ?? "t",
      post,
      params,
    });
    try {
      const result = await sent;
      events.push(`-> ${JSON.stringify(result)}`);
    } catch (error) {
      events.push(`-> ${(error as Error).name}: ${(error as Error).message}`);
    }
  }

  await reply(1, HUMAN, 0, "first"); // the user list is read
  await reply(1, HUMAN, 1, "second");
  await reply(1, HUMAN, 0, "first again"); // recorded: nothing posted
  await reply(1, HUMAN, 3, "fourth"); // past the answers: counted by the loop guard
  await reply(2, OTHER_BOT, 0, "to a bot"); // counted
  await reply(2, OTHER_BOT, 1, "to a bot again"); // counted: the third
  await reply(2, OTHER_BOT, 2, "one too many"); // the loop guard trips
  await reply(2, OTHER_BOT, 3, "still paused");
  await reply(3, HUMAN, 0, "a long reply that is cut into parts"); // the intent holds part one
  await reply(4, HUMAN, 0, "fails", { fail: true });
  await reply(5, HUMAN, 0, "elsewhere", { kind: "send", where: "u" });
  await reply(6, HUMAN, 0, "bad", { badTarget: true });
  diskFull = true;
  await reply(7, HUMAN, 0, "disk full"); // reported; the reply still goes out
  diskFull = false;
  await reply(8, HUMAN, 0, "disk back");
  // Several at once, as lanes send them: only what happened is compared, not how they interleaved.
  const before = events.length;
  await Promise.all([9, 10, 11].map((id) => reply(id, HUMAN, 0, `batch ${id}`)));
  events.push(...events.splice(before).sort());
  await file.close();
  const again = await FileDeliveryStore.open({ path });
  return { events, journal: (await again.load()).replies };
}

describe("the reply guard's one path", () => {
  it("does the same over a store with synchronous outcomes and one without, intent on disk before each post", async () => {
    const slow = await run(false);
    const fast = await run(true);
    expect(fast.events).toEqual(slow.events);
    expect(fast.journal).toEqual(slow.journal);
    // Both wrote every intent before its post.
    expect(fast.events.filter((e) => e.includes("intent on disk: false"))).toEqual([
      // The refused target posts without an intent (the action says why), and the full disk
      // could not take the intent: both paths alike.
      'post 6/0 "bad" intent on disk: false',
      'post 7/0 "disk full" intent on disk: false',
    ]);
    expect(fast.events).toContain("storage error: ENOSPC: no space left on device, write");
    // The script's outcomes themselves: a repeat answered from the record, the loop guard's trip.
    expect(fast.events).toContain('-> {"id":100,"ids":[100],"repeated":true}');
    expect(fast.events.some((e) => e.startsWith("-> LoopGuardError"))).toBe(true);
  });
});

describe("the reply guard's records", () => {
  it("are the store's own (one copy of each reply), for the file and the key-value store", async () => {
    const dir = mkdtempSync(join(tmpdir(), "topicbot-guard-book-"));
    dirs.push(dir);
    const stores: DeliveryStore[] = [
      await FileDeliveryStore.open({ path: join(dir, "j.jsonl") }),
      new KeyValueDeliveryStore(createMemoryStore().namespace("topicbot:runtime")),
    ];
    for (const store of stores) {
      const guard = new ReplyGuard({
        store,
        outbox: {
          send: async () => ({ id: 0, ids: [] }),
          landed: async () => undefined,
          confirm: () => undefined,
        },
        directory: directoryOf(users),
        server: () => ({ featureLevel: 400, maxMessageLength: 10_000 }),
        floor: () => 0,
        now: () => 1,
        log: { info: () => undefined, warn: () => undefined } as unknown as Logger,
        onStorageError: () => undefined,
      });
      // An outcome the store took (not through the guard) is what the guard answers from.
      await store.intend({
        incomingId: 5,
        index: 0,
        params: { type: "channel", to: 1, topic: "t", content: "x" },
        floor: 4,
        at: 1,
      });
      await store.sent(5, 0, [77]);
      expect(guard.sent(5, 0)).toEqual([77]);
      expect(store.replies?.size).toBe(1);
      await store.close();
    }
  });
});
