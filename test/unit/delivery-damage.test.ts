import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import * as nodeFs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileDeliveryStore } from "../../src/state/delivery/file.js";
import type { ReplyIntent } from "../../src/state/delivery/store.js";
import { createFileStore } from "../../src/state/key-value/file.js";
import type { JournalFs } from "../../src/state/journal.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "topicbot-damage-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const intent = (incomingId: number): ReplyIntent => ({
  incomingId,
  index: 0,
  params: { type: "channel", to: 1, topic: "t", content: `echo ${incomingId}` },
  floor: incomingId,
  at: 1,
});

/** A journal as a bot leaves it: its first watermark, then replies and later watermarks. */
async function journalOfARun(path: string): Promise<string> {
  const store = await FileDeliveryStore.open({ path });
  await store.saveWatermark({ lastHandledId: 100, handledAbove: [] });
  await store.flush();
  for (let id = 101; id <= 110; id++) {
    await store.intend(intent(id));
    await store.sent(id, 0, [1000 + id]);
    await store.saveWatermark({ lastHandledId: id, handledAbove: [] });
    await store.flush();
  }
  await store.close();
  return readFile(path, "utf8");
}

const collect = () => {
  const warnings: string[] = [];
  return {
    warnings,
    warn: (_: Record<string, unknown>, message: string) => warnings.push(message),
  };
};

describe("a damaged delivery journal never starts silently", () => {
  it("watermark records gone: an error naming the file (old code: a fresh start, no warning)", async () => {
    const path = join(dir, "bot.json.delivery.jsonl");
    const text = await journalOfARun(path);
    await writeFile(
      path,
      text
        .split("\n")
        .filter((l) => !l.startsWith('{"w"'))
        .join("\n"),
    );
    await expect(FileDeliveryStore.open({ path })).rejects.toThrow(
      `delivery journal ${path}: it holds 20 reply records but no watermark`,
    );
  });

  it("watermark records gone, with onDamage recover: rebuilt from the oldest reply it holds, logged, and written back", async () => {
    const path = join(dir, "bot.json.delivery.jsonl");
    const text = await journalOfARun(path);
    await writeFile(
      path,
      text
        .split("\n")
        .filter((l) => !l.startsWith('{"w"'))
        .join("\n"),
    );
    const { warnings, warn } = collect();
    const store = await FileDeliveryStore.open({ path, onDamage: "recover", warn });
    const { watermark, replies } = await store.load();
    // Caught up from before the first message it answered: nothing lost, nothing answered twice.
    expect(watermark).toEqual({ lastHandledId: 100, handledAbove: [] });
    expect(replies.filter((r) => r.ids)).toHaveLength(10);
    expect(warnings.join("\n")).toMatch(
      /no watermark .*recovered from message 100 \(storage.onDamage: recover\)/,
    );
    await store.close();
    // Written back whole: the next start reads it without a word.
    const again = collect();
    const next = await FileDeliveryStore.open({ path, warn: again.warn });
    expect((await next.load()).watermark).toEqual({ lastHandledId: 100, handledAbove: [] });
    expect(again.warnings).toEqual([]);
    await next.close();
  });

  it("truncated to half: the record cut short is dropped with a warning, and the state is that of the records before it", async () => {
    const path = join(dir, "bot.json.delivery.jsonl");
    const text = await journalOfARun(path);
    const half = Buffer.from(text).subarray(0, Math.floor(Buffer.byteLength(text) / 2) + 3);
    await writeFile(path, half);
    const { warnings, warn } = collect();
    const store = await FileDeliveryStore.open({ path, warn });
    const { watermark } = await store.load();
    expect(watermark!.lastHandledId).toBeGreaterThanOrEqual(100);
    expect(watermark!.lastHandledId).toBeLessThan(110);
    expect(warnings.join("\n")).toContain(`delivery journal ${path}: its last record`);
    expect(warnings.join("\n")).toContain("was cut short");
    await store.close();
  });

  it("a line that is not a record: an error naming file and line; onDamage recover skips it with a warning", async () => {
    const path = join(dir, "bot.json.delivery.jsonl");
    const lines = (await journalOfARun(path)).split("\n");
    lines.splice(3, 0, "garbage", "[1,2]");
    await writeFile(path, lines.join("\n"));
    await expect(FileDeliveryStore.open({ path })).rejects.toThrow(
      `delivery journal ${path} line 4: not a JSON record`,
    );
    const { warnings, warn } = collect();
    const store = await FileDeliveryStore.open({ path, onDamage: "recover", warn });
    expect((await store.load()).watermark).toEqual({ lastHandledId: 110, handledAbove: [] });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/line 4: not a JSON record; skipped/);
    await store.close();
  });

  it("a newer format: an error in every mode (its records would be misread)", async () => {
    const path = join(dir, "bot.json.delivery.jsonl");
    await writeFile(path, '{"v":2}\n{"w":{"lastHandledId":5,"handledAbove":[]}}\n');
    for (const onDamage of ["fail", "recover"] as const)
      await expect(FileDeliveryStore.open({ path, onDamage })).rejects.toThrow(
        "written by a newer topicbot (journal format 2; this version reads 1)",
      );
  });

  it("a compacted journal begins with its format header and reads back", async () => {
    const path = join(dir, "bot.json.delivery.jsonl");
    await writeFile(path, '{"i":' + JSON.stringify(intent(7)) + "}\n");
    const store = await FileDeliveryStore.open({ path, onDamage: "recover" });
    await store.close();
    expect((await readFile(path, "utf8")).split("\n")[0]).toBe('{"v":1}');
    const again = await FileDeliveryStore.open({ path });
    expect((await again.load()).watermark).toEqual({ lastHandledId: 6, handledAbove: [] });
    await again.close();
  });

  it("a read-only disk at start: an error naming the journal and what to do (the bot does not start)", async () => {
    const fs: JournalFs = {
      ...nodeFs,
      openSync: (() => {
        throw Object.assign(new Error("EROFS: read-only file system, open"), { code: "EROFS" });
      }) as unknown as typeof nodeFs.openSync,
    };
    const path = join(dir, "bot.json.delivery.jsonl");
    await expect(FileDeliveryStore.open({ path, fs })).rejects.toThrow(
      `storage: cannot open the delivery journal ${path} for writing (EROFS`,
    );
  });
});

describe("a damaged store file never starts silently", () => {
  it('an empty-entries stand-in ({"entries":[]}, or {} with no count) is an error naming the file (old code: taken as empty data)', async () => {
    const path = join(dir, "bot.json");
    await writeFile(path, '{"format":"topicbot-store","version":1,"entries":[]}');
    await expect(createFileStore({ path })).rejects.toThrow(
      `storage: ${path} is not a topicbot store file: "entries" is a list`,
    );
    await writeFile(path, '{"format":"topicbot-store","version":1,"entries":{}}');
    await expect(createFileStore({ path })).rejects.toThrow(
      `storage: ${path} holds no entries and no count`,
    );
    const { warnings, warn } = collect();
    const store = await createFileStore({ path, onDamage: "recover", warn });
    expect(warnings.join("\n")).toContain("taken as it is (storage.onDamage: recover)");
    await store.close();
  });

  it("entries lost (the count does not match) is an error; a newer version's file names the version", async () => {
    const path = join(dir, "bot.json");
    const store = await createFileStore({ path });
    await store.namespace("karma").set("mia", 3);
    await store.namespace("karma").set("zoe", 4);
    await store.close();
    const doc = JSON.parse(await readFile(path, "utf8")) as {
      count: number;
      entries: Record<string, unknown>;
    };
    expect(doc.count).toBe(2);
    delete doc.entries[Object.keys(doc.entries)[0]!];
    await writeFile(path, JSON.stringify(doc));
    await expect(createFileStore({ path })).rejects.toThrow(
      "says it was written with 2 entries but holds 1",
    );
    await writeFile(path, '{"format":"topicbot-store","version":2,"count":0,"entries":{}}');
    await expect(createFileStore({ path })).rejects.toThrow(
      "was written by a newer topicbot (store format version 2",
    );
    // A file this version wrote empty (every key deleted) is no damage.
    const empty = await createFileStore({ path: join(dir, "empty.json") });
    await empty.namespace("n").set("k", 1);
    await empty.namespace("n").delete("k");
    await empty.close();
    await (await createFileStore({ path: join(dir, "empty.json") })).close();
  });
});
