import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import * as nodeFs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FileDeliveryStore } from "../../src/state/delivery/file.js";
import { KeyValueDeliveryStore } from "../../src/state/delivery/key-value.js";
import { journalPath, openDeliveryStore } from "../../src/state/delivery/open.js";
import { memoryDeliveryOf } from "../../src/state/delivery/memory.js";
import { ReplyBook } from "../../src/state/delivery/records.js";
import type { DeliveryStore, ReplyIntent } from "../../src/state/delivery/store.js";
import { createFileStore } from "../../src/state/key-value/file.js";
import type { JournalFs } from "../../src/state/journal.js";
import { createMemoryStore } from "../../src/state/key-value/store.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "topicbot-delivery-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const intent = (incomingId: number, index = 0): ReplyIntent => ({
  incomingId,
  index,
  params: { type: "channel", to: 1, topic: "t", content: `echo ${incomingId}` },
  floor: incomingId,
  at: 1,
});

/** The contract every store keeps: what was written comes back from a new instance. */
async function roundTrip(open: () => Promise<DeliveryStore>): Promise<void> {
  const store = await open();
  expect(await store.load()).toEqual({ watermark: undefined, replies: [] });
  await store.saveWatermark({ lastHandledId: 10, handledAbove: [12] });
  await store.intend(intent(11));
  await store.sent(11, 0, [100]);
  await store.intend(intent(13)); // killed before the outcome
  await store.flush();
  await store.close();
  const again = await open();
  expect(await again.load()).toEqual({
    watermark: { lastHandledId: 10, handledAbove: [12] },
    replies: [
      // A settled reply keeps only its outcome: the intent is there for read-back after a crash.
      { incomingId: 11, index: 0, ids: [100] },
      { incomingId: 13, index: 0, intent: intent(13) },
    ],
  });
  await again.close();
}

describe("delivery stores", () => {
  it("key-value (memory): intents, outcomes and the watermark come back", async () => {
    const kv = createMemoryStore();
    await roundTrip(async () => new KeyValueDeliveryStore(kv.namespace("topicbot:runtime")));
  });

  it("memory (`storage: memory`): they come back to the next bot over the same memory store", async () => {
    const kv = createMemoryStore();
    await roundTrip(() => openDeliveryStore({ type: "memory" }, kv));
    // Another memory store is another process's memory: nothing carried over.
    const other = await openDeliveryStore({ type: "memory" }, createMemoryStore());
    expect(await other.load()).toEqual({ watermark: undefined, replies: [] });
  });

  it("memory: the watermark handed over later is the one read back, as it was at the time", async () => {
    const kv = createMemoryStore();
    const store = memoryDeliveryOf(kv);
    const above = [12];
    store.saveWatermarkLater(() => ({ lastHandledId: 10, handledAbove: above }));
    await store.close();
    above.push(14); // the ledger's array, changed after the bot stopped: not what was saved
    expect((await memoryDeliveryOf(kv).load()).watermark).toEqual({
      lastHandledId: 10,
      handledAbove: [12],
    });
  });

  it("file journal: intents, outcomes and the watermark come back", async () => {
    const path = join(dir, "bot.json.delivery.jsonl");
    await roundTrip(() => FileDeliveryStore.open({ path }));
  });

  it("file journal: each record is on disk when its call resolves (no flush, no close)", async () => {
    const path = join(dir, "j.jsonl");
    const store = await FileDeliveryStore.open({ path });
    // As a bot's ledger does: its first watermark before any reply (replies without one are damage).
    await store.saveWatermark({ lastHandledId: 4, handledAbove: [] });
    await store.flush();
    await store.intend(intent(5));
    // What a SIGKILL now would leave: the file as it is.
    expect(await readFile(path, "utf8")).toContain('"incomingId":5');
    const after = await FileDeliveryStore.open({ path });
    expect((await after.load()).replies).toEqual([{ incomingId: 5, index: 0, intent: intent(5) }]);
  });

  it("file journal: one write per reply under load (outcome and watermark ride with the next intent)", async () => {
    const path = join(dir, "j.jsonl");
    let writes = 0;
    const fs: JournalFs = {
      ...nodeFs,
      writeSync: ((...args: unknown[]) => {
        writes++;
        return (nodeFs.writeSync as (...a: unknown[]) => number)(...args);
      }) as typeof nodeFs.writeSync,
    };
    const store = await FileDeliveryStore.open({ path, fs });
    // The 20 ms timer does not fire by itself here, however slow the machine.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      for (let id = 1; id <= 100; id++) {
        await store.intend(intent(id));
        await store.sent(id, 0, [id + 1000]);
        await store.saveWatermark({ lastHandledId: id, handledAbove: [] });
      }
    } finally {
      vi.useRealTimers();
    }
    expect(writes).toBe(100);
    await store.flush();
    expect(writes).toBe(101);
    const again = await FileDeliveryStore.open({ path });
    const { watermark, replies } = await again.load();
    expect(watermark).toEqual({ lastHandledId: 100, handledAbove: [] });
    expect(replies.filter((r) => r.ids !== undefined)).toHaveLength(100);
  });

  it("file journal: outcomes and the watermark are written within 20 ms when no intent comes", async () => {
    const path = join(dir, "j.jsonl");
    const store = await FileDeliveryStore.open({ path });
    await store.intend(intent(3));
    await store.sent(3, 0, [77]);
    await store.saveWatermark({ lastHandledId: 3, handledAbove: [] });
    const deadline = Date.now() + 5_000;
    while (!(await readFile(path, "utf8")).includes('"w"') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 5));
    const again = await FileDeliveryStore.open({ path });
    expect((await again.load()).watermark?.lastHandledId).toBe(3);
    expect((await again.load()).replies).toEqual([{ incomingId: 3, index: 0, ids: [77] }]);
  });

  it("file journal: compacts to what it remembers, so writes stay O(1) on average", async () => {
    const path = join(dir, "j.jsonl");
    const store = await FileDeliveryStore.open({ path, capacity: 3 });
    for (let id = 1; id <= 6_000; id++) {
      await store.intend(intent(id));
      await store.sent(id, 0, [id + 100_000]);
    }
    await store.saveWatermark({ lastHandledId: 6_000, handledAbove: [] });
    await store.flush();
    const lines = (await readFile(path, "utf8")).trim().split("\n");
    expect(lines.length).toBeLessThan(10_000);
    const again = await FileDeliveryStore.open({ path, capacity: 3 });
    const { watermark, replies } = await again.load();
    expect(watermark).toEqual({ lastHandledId: 6_000, handledAbove: [] });
    expect(replies.map((r) => r.incomingId)).toEqual([5_998, 5_999, 6_000]);
  });

  it("file journal: a last line cut short by a power cut is dropped, the rest kept", async () => {
    const path = join(dir, "j.jsonl");
    await writeFile(path, `{"w":{"lastHandledId":7,"handledAbove":[]}}\n{"i":{"incomingId":8,"ind`);
    const store = await FileDeliveryStore.open({ path });
    expect((await store.load()).watermark?.lastHandledId).toBe(7);
    await store.sent(9, 0, [1]);
    await store.flush();
    const again = await FileDeliveryStore.open({ path });
    expect((await again.load()).replies).toEqual([{ incomingId: 9, index: 0, ids: [1] }]);
  });
});

describe("damaged delivery state is an error naming where and what to do", () => {
  it("a journal record with wrong types names the file, the line and the key", async () => {
    const path = join(dir, "j.jsonl");
    await writeFile(
      path,
      `{"w":{"lastHandledId":3,"handledAbove":[]}}\n{"w":{"lastHandledId":"abc","handledAbove":[]}}\n`,
    );
    await expect(FileDeliveryStore.open({ path })).rejects.toThrow(
      new RegExp(
        `delivery journal ${path} line 2, key "w": "lastHandledId" is "abc".*restore it from a backup`,
      ),
    );
  });

  it("a journal line that is not JSON is named", async () => {
    const path = join(dir, "j.jsonl");
    await writeFile(path, `not json\n`);
    await expect(FileDeliveryStore.open({ path })).rejects.toThrow(/line 1: not a JSON record/);
  });

  it('an older store file\'s delivery key with lastHandledId "abc" is an error, not a fresh start', async () => {
    const path = join(dir, "bot.json");
    const kv = await createFileStore({ path });
    await kv
      .namespace("topicbot:runtime")
      .set("delivery", { lastHandledId: "abc", handledAbove: [] });
    await kv.flush();
    await expect(
      openDeliveryStore({ type: "file", path: "bot.json" }, kv, { baseDir: dir }),
    ).rejects.toThrow(/bot\.json, key "topicbot:runtime\/delivery": "lastHandledId" is "abc"/);
    await kv.close();
  });

  it("an older store file's reply ledger that is not a list is an error naming the key", async () => {
    const kv = createMemoryStore();
    await kv.namespace("topicbot:runtime").set("replies", { oops: true });
    await expect(
      new KeyValueDeliveryStore(kv.namespace("topicbot:runtime")).load(),
    ).rejects.toThrow(
      /key "topicbot:runtime\/replies": expected a list of \[incoming message ID, replies\] pairs/,
    );
  });

  it("takes over an older store file's watermark and reply ledger once", async () => {
    const path = join(dir, "bot.json");
    const kv = await createFileStore({ path });
    const runtime = kv.namespace("topicbot:runtime");
    await runtime.set("delivery", { lastHandledId: 40, handledAbove: [42] });
    await runtime.set("replies", [[41, [[500], [501, 502]]]]);
    const store = await openDeliveryStore({ type: "file", path: "bot.json" }, kv, { baseDir: dir });
    expect(await store.load()).toEqual({
      watermark: { lastHandledId: 40, handledAbove: [42] },
      replies: [
        { incomingId: 41, index: 0, ids: [500] },
        { incomingId: 41, index: 1, ids: [501, 502] },
      ],
    });
    expect(await readFile(journalPath("bot.json", dir), "utf8")).toContain('"lastHandledId":40');
    await store.close();
    await kv.close();
  });
});

describe("a journal whose writes fail", () => {
  it("rejects the write (so the runtime can report it) and works again once the disk does", async () => {
    await mkdir(join(dir, "d"));
    let full = false;
    const fs: JournalFs = {
      ...nodeFs,
      writeSync: ((...args: Parameters<typeof nodeFs.writeSync>) => {
        if (full)
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
            code: "ENOSPC",
          });
        return (nodeFs.writeSync as (...a: unknown[]) => number)(...args);
      }) as typeof nodeFs.writeSync,
    };
    const path = join(dir, "d", "j.jsonl");
    const store = await FileDeliveryStore.open({ path, fs });
    await store.saveWatermark({ lastHandledId: 0, handledAbove: [] });
    await store.flush();
    full = true;
    await expect(store.intend(intent(1))).rejects.toThrow(/ENOSPC/);
    full = false;
    await store.intend(intent(2));
    const again = await FileDeliveryStore.open({ path });
    expect((await again.load()).replies.map((r) => r.incomingId)).toEqual([2]);
  });
});

describe("the reply book", () => {
  it("drops a reply's intent once it is known to be posted, and only then", () => {
    // Records live for `capacity` incoming messages: under a burst whatever they hold is promoted
    // to V8's old generation, so a settled reply keeps only what answers a lookup.
    const book = new ReplyBook(10);
    book.intend(intent(1));
    book.sent(1, 0, [50]);
    expect(book.get(1, 0)).toEqual({ incomingId: 1, index: 0, ids: [50] });
    book.intend(intent(2));
    book.sent(2, 0, []);
    expect(book.get(2, 0)).toEqual({ incomingId: 2, index: 0, intent: intent(2), ids: [] });
  });
});
