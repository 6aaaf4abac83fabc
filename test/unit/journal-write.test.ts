import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as nodeFs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FileDeliveryStore } from "../../src/state/delivery/file.js";
import { DeliveryLedger } from "../../src/inbound/ledger.js";
import { MinHeap } from "../../src/inbound/min-heap.js";
import type { ReplyIntent } from "../../src/state/delivery/store.js";
import { AppendJournal, type JournalFs } from "../../src/state/journal.js";

/** The journal's records, without its format header (`{"v":1}`, the first line of every journal). */
const journalLines = (path: string): string[] =>
  readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .filter((line) => line !== '{"v":1}');

// How the journal and the file store write: a record handed to write(2) as a string is finished
// from its bytes after a short write; the lazy records cost no timer per reply, and only the
// newest watermark is written.

const dirs: string[] = [];
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "topicbot-journal-write-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const intent = (incomingId: number): ReplyIntent => ({
  incomingId,
  index: 0,
  params: { type: "channel", to: 1, topic: "t", content: `échø ${incomingId}` },
  floor: incomingId,
  at: 1_000,
});

describe("the journal's writes", () => {
  it("finishes a record that write(2) took only part of", () => {
    const path = join(scratch(), "j.jsonl");
    let calls = 0;
    const fs: JournalFs = {
      ...nodeFs,
      writeSync: ((fd: number, data: string | Uint8Array, ...rest: unknown[]) => {
        calls++;
        // The first write of each record takes 7 bytes only (as a full pipe or a signal might).
        if (typeof data === "string") return nodeFs.writeSync(fd, Buffer.from(data).subarray(0, 7));
        return (nodeFs.writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
      }) as typeof nodeFs.writeSync,
    };
    const journal = AppendJournal.open({ path, fs });
    journal.append('{"a":"ünïcode"}');
    journal.appendMany(['{"b":1}', '{"c":2}']);
    journal.close();
    expect(readFileSync(path, "utf8")).toBe('{"a":"ünïcode"}\n{"b":1}\n{"c":2}\n');
    expect(calls).toBeGreaterThanOrEqual(4);
  });

  it("arms no timer per reply under load, and writes the newest watermark at most once per 20 ms", async () => {
    const path = join(scratch(), "j.jsonl");
    const store = await FileDeliveryStore.open({ path });
    // Timers do not fire by themselves here (however slow the machine), so every record goes out
    // with the next turn's intents; the group writes themselves wait on real setImmediate.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const fakeSetTimeout = globalThis.setTimeout;
    let timers = 0;
    globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
      timers++;
      return fakeSetTimeout(...args);
    }) as typeof setTimeout;
    const started = performance.now();
    for (let id = 1; id <= 100; id++) {
      await store.intend(intent(id));
      store.sentNow(id, 0, [id + 1_000]);
      // Several saves between two writes (lanes finishing): only the newest is written.
      for (const above of [id + 3, id + 2, id + 1])
        await store.saveWatermark({ lastHandledId: id, handledAbove: [above] });
    }
    const elapsed = performance.now() - started;
    globalThis.setTimeout = fakeSetTimeout;
    vi.useRealTimers();
    expect(timers).toBeLessThanOrEqual(1);
    const written = journalLines(path);
    // The watermark changed every turn; it rides with an intent write only once it has waited
    // 20 ms (the timer, faked here, would write it otherwise).
    expect(written.filter((r) => r.startsWith('{"w"')).length).toBeLessThanOrEqual(
      Math.floor(elapsed / 20) + 1,
    );
    await store.close();
    const records = journalLines(path);
    const watermarks = records.filter((r) => r.startsWith('{"w"'));
    expect(watermarks.at(-1)).toBe('{"w":{"lastHandledId":100,"handledAbove":[101]}}');
    expect(records.filter((r) => r.startsWith('{"i"'))).toHaveLength(100);
    expect(records.filter((r) => r.startsWith('{"s"'))).toHaveLength(100);
    const again = await FileDeliveryStore.open({ path });
    const { watermark, replies } = await again.load();
    expect(watermark).toEqual({ lastHandledId: 100, handledAbove: [101] });
    expect(replies.filter((r) => r.ids !== undefined && r.intent === undefined)).toHaveLength(100);
    await again.close();
  });

  it("writes an outcome that waited 20 ms even while a timer armed earlier is running", async () => {
    const path = join(scratch(), "j.jsonl");
    const store = await FileDeliveryStore.open({ path });
    await store.intend(intent(1));
    store.sentNow(1, 0, [11]); // arms the timer
    await store.intend(intent(2)); // writes the outcome; the timer stays armed
    await new Promise((r) => setTimeout(r, 12));
    store.sentNow(2, 0, [12]); // waits for the timer, which re-arms for the rest of its 20 ms
    const deadline = Date.now() + 5_000;
    while (!readFileSync(path, "utf8").includes('{"s":[2,0,[12]]}') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
    expect(readFileSync(path, "utf8")).toContain('{"s":[2,0,[12]]}');
    await store.close();
  });
});

describe("the file store's group commit", () => {
  /** A file store whose writes are counted, and fail while `full` is set. */
  async function counted(path: string) {
    const state = { writes: 0, full: false };
    const fs: JournalFs = {
      ...nodeFs,
      writeSync: ((...args: unknown[]) => {
        if (state.full) throw new Error("ENOSPC: no space left on device, write");
        state.writes++;
        return (nodeFs.writeSync as (...a: unknown[]) => number)(...args);
      }) as typeof nodeFs.writeSync,
    };
    return { store: await FileDeliveryStore.open({ path, fs }), state };
  }

  it("writes the intents of one turn in one write(2), each durable before its intend resolves", async () => {
    const path = join(scratch(), "j.jsonl");
    const { store, state } = await counted(path);
    await store.intend(intent(1));
    store.sentNow(1, 0, [1_001]); // waits for the next write
    state.writes = 0;
    const onDisk: boolean[] = [];
    // A poll's worth of replies, as the dispatcher starts them: all in one turn.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.intend(intent(2 + i)).then(() => {
          onDisk.push(readFileSync(path, "utf8").includes(`"incomingId":${2 + i},`));
        }),
      ),
    );
    expect(state.writes).toBe(1);
    expect(onDisk).toEqual(Array.from({ length: 20 }, () => true));
    // The waiting outcome went out in the same write, before the intents.
    const lines = journalLines(path);
    expect(lines[1]).toBe('{"s":[1,0,[1001]]}');
    expect(lines).toHaveLength(22);
    await store.close();
  });

  it("rejects every intent of a turn whose write failed, and keeps the outcomes waiting", async () => {
    const path = join(scratch(), "j.jsonl");
    const { store, state } = await counted(path);
    // As a bot's ledger does: its first watermark before any reply (replies without one are damage).
    await store.saveWatermark({ lastHandledId: 0, handledAbove: [] });
    await store.flush();
    await store.intend(intent(1));
    store.sentNow(1, 0, [1_001]);
    state.full = true;
    const results = await Promise.allSettled([2, 3, 4].map((id) => store.intend(intent(id))));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(String((results[0] as PromiseRejectedResult).reason)).toContain("ENOSPC");
    state.full = false;
    await store.intend(intent(5));
    await store.close();
    const again = await FileDeliveryStore.open({ path });
    const { replies } = await again.load();
    // The outcome of 1 and the intent of 5 are on disk; the failed intents are not.
    expect(replies.map((r) => [r.incomingId, r.ids ?? null])).toEqual([
      [1, [1_001]],
      [5, null],
    ]);
    await again.close();
  });

  it("builds the ledger's watermark only when the journal writes it, not every turn", async () => {
    const path = join(scratch(), "j.jsonl");
    const store = await FileDeliveryStore.open({ path });
    const ledger = new DeliveryLedger({ store });
    ledger.restore({ lastHandledId: 0, handledAbove: [] });
    // The state's handled IDs are sorted each time it is built.
    const sorted = vi.spyOn(MinHeap.prototype, "sorted");
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const started = performance.now();
    // Message 1 runs throughout, so every later one stays in the state's handled IDs.
    ledger.claim(1);
    for (let id = 2; id <= 100; id++) {
      ledger.claim(id);
      await store.intend(intent(id));
      void ledger.finish(id);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const elapsed = performance.now() - started;
    vi.useRealTimers();
    expect(sorted.mock.calls.length).toBeLessThanOrEqual(Math.floor(elapsed / 20) + 1);
    await ledger.finish(1);
    await ledger.settled();
    await store.close();
    const again = await FileDeliveryStore.open({ path });
    expect((await again.load()).watermark).toEqual({ lastHandledId: 100, handledAbove: [] });
    await again.close();
  });
});
