import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileDeliveryStore } from "../../src/state/delivery/file.js";
import { DeliveryLedger } from "../../src/inbound/ledger.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "topicbot-baseline-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a first start's watermark", () => {
  it("is on disk when baseline() resolves (old code: written up to 20 ms later, so a kill right after registering lost it)", async () => {
    const path = join(dir, "bot.json.delivery.jsonl");
    const store = await FileDeliveryStore.open({ path });
    const ledger = new DeliveryLedger({ store });
    await ledger.baseline(1234);
    // Read at once, as a process started after a SIGKILL at this instant would.
    const records = readFileSync(path, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { w?: unknown });
    expect(records.find((r) => r.w !== undefined)).toEqual({
      w: { lastHandledId: 1234, handledAbove: [] },
    });
    const again = await FileDeliveryStore.open({ path });
    expect((await again.load()).watermark).toEqual({ lastHandledId: 1234, handledAbove: [] });
    await again.close();
    await store.close();
  });

  it("rejects when it cannot be written, so the bot does not start without it", async () => {
    const path = join(dir, "bot.json.delivery.jsonl");
    const store = await FileDeliveryStore.open({ path });
    await store.close(); // every write now fails
    const ledger = new DeliveryLedger({ store });
    await expect(ledger.baseline(5)).rejects.toThrow(/closed/);
  });
});
