import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as nodeFs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FileDeliveryStore } from "../../src/runtime/delivery/file-store.js";
import type { ReplyIntent } from "../../src/runtime/delivery/store.js";
import { AppendJournal, type JournalFs } from "../../src/storage/journal.js";

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

  it("arms no timer per reply under load, and writes only the newest watermark", async () => {
    const path = join(scratch(), "j.jsonl");
    const store = await FileDeliveryStore.open({ path });
    const timers = vi.spyOn(globalThis, "setTimeout");
    for (let id = 1; id <= 100; id++) {
      store.intendNow(intent(id));
      store.sentNow(id, 0, [id + 1_000]);
      // Several saves between two writes (lanes finishing): only the newest is written.
      for (const above of [id + 3, id + 2, id + 1])
        await store.saveWatermark({ lastHandledId: id, handledAbove: [above] });
    }
    expect(timers.mock.calls.length).toBeLessThanOrEqual(1);
    await store.close();
    const records = readFileSync(path, "utf8").trim().split("\n");
    const watermarks = records.filter((r) => r.startsWith('{"w"'));
    expect(watermarks).toHaveLength(100);
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
    store.intendNow(intent(1));
    store.sentNow(1, 0, [11]); // arms the timer
    store.intendNow(intent(2)); // writes the outcome; the timer stays armed
    await new Promise((r) => setTimeout(r, 12));
    store.sentNow(2, 0, [12]); // waits for the timer, which re-arms for the rest of its 20 ms
    const deadline = Date.now() + 5_000;
    while (!readFileSync(path, "utf8").includes('{"s":[2,0,[12]]}') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
    expect(readFileSync(path, "utf8")).toContain('{"s":[2,0,[12]]}');
    await store.close();
  });
});
