// Test helper, preloaded into a `bot start` child (`node --import`): on SIGUSR2 it writes the size of V8's young generation to a file.
// The file is named by TOPICBOT_YOUNG_GENERATION_PROBE; it is written whole, then renamed, so a
// reader never sees half of it. V8 never shrinks the young generation while a process runs, so
// its size at any moment is the most it has grown to.
import { renameSync, writeFileSync } from "node:fs";
import process from "node:process";
import { getHeapSpaceStatistics } from "node:v8";

const out = process.env.TOPICBOT_YOUNG_GENERATION_PROBE;
if (out) {
  process.on("SIGUSR2", () => {
    const space = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
    writeFileSync(`${out}.tmp`, JSON.stringify({ newSpaceBytes: space?.space_size ?? 0 }));
    renameSync(`${out}.tmp`, out);
  });
}
