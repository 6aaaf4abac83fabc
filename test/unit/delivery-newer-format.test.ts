// A delivery journal written by a newer topicbot is reported as such, not as damage.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { FileDeliveryStore } from "../../src/state/delivery/file.js";

let dir: string;

/** The error opening the journal at `path` fails with (a test failure when it opens). */
async function openFails(path: string): Promise<Error> {
  const store = await FileDeliveryStore.open({ path }).catch((e: unknown) => e as Error);
  if (store instanceof Error) return store;
  await store.close();
  throw new Error(`${path} opened`);
}
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "topicbot-journal-format-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

it("a journal whose format header is newer than this version reads is 'a newer topicbot', not damage (old code: 'unknown record', damaged)", async () => {
  const path = join(dir, "bot.json.delivery.jsonl");
  await writeFile(path, '{"v":2}\n{"q":[1,2]}\n');
  const error = await openFails(path);
  expect(error.name).toBe("NewerDeliveryFormat");
  expect(error.message).toContain("newer topicbot");
  expect(error.message).toContain("line 1");
  expect(error.message).not.toMatch(/restore it from a backup/);
});

it("a line that is not a record is still damage", async () => {
  const path = join(dir, "bot.json.delivery.jsonl");
  await writeFile(path, '{"Hello World": 1}\n');
  const error = await openFails(path);
  expect(error.name).toBe("DamagedDeliveryState");
});
