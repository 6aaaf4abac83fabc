// Benchmark probe, preloaded into each contender of bench/realm-size.ts (`--expose-gc --import`): its heap after a full collection.
// On SIGUSR2 it collects garbage three times and writes { rss, heap } (MiB) to the file named by
// TOPICBOT_REALM_PROBE, whole and then renamed, so the bench never reads half a file.
import { renameSync, writeFileSync } from "node:fs";
import process from "node:process";

const out = process.env.TOPICBOT_REALM_PROBE;
const MiB = 1024 * 1024;

if (out && typeof globalThis.gc === "function") {
  process.on("SIGUSR2", () => {
    for (let i = 0; i < 3; i++) globalThis.gc();
    const m = process.memoryUsage();
    writeFileSync(`${out}.tmp`, JSON.stringify({ rss: m.rss / MiB, heap: m.heapUsed / MiB }));
    renameSync(`${out}.tmp`, out);
  });
}
