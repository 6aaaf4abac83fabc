// Benchmark probe, preloaded into the burst bench's `bot start` (`--import`): what its memory is made of at its RSS peak.
// Every 10 ms it reads process.memoryUsage() and V8's heap spaces and keeps the sample with the
// highest RSS. On SIGUSR2 it writes { now, peak } to the file named by TOPICBOT_MEMORY_PROBE and
// starts a new peak, so the bench reads the idle breakdown first and the burst's peak after it.
import { renameSync, writeFileSync } from "node:fs";
import process from "node:process";
import { setInterval } from "node:timers";
import { getHeapSpaceStatistics } from "node:v8";

const out = process.env.TOPICBOT_MEMORY_PROBE;
const MiB = 1024 * 1024;

function sample() {
  const m = process.memoryUsage();
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size / MiB]),
  );
  return {
    rss: m.rss / MiB,
    heapTotal: m.heapTotal / MiB,
    heapUsed: m.heapUsed / MiB,
    newSpace: spaces.new_space ?? 0,
    oldSpace: spaces.old_space ?? 0,
    largeObjects: (spaces.large_object_space ?? 0) + (spaces.new_large_object_space ?? 0),
    external: m.external / MiB,
  };
}

if (out) {
  let peak = sample();
  setInterval(() => {
    const s = sample();
    if (s.rss > peak.rss) peak = s;
  }, 10).unref();
  process.on("SIGUSR2", () => {
    const now = sample();
    // Written whole, then renamed: the bench never reads half a file.
    writeFileSync(`${out}.tmp`, JSON.stringify({ now, peak: now.rss > peak.rss ? now : peak }));
    renameSync(`${out}.tmp`, out);
    peak = now;
  });
}
