// The V8 heap settings `bot start` applies from the config's `memory` section (never the library inside another program).
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import type { MemorySettings } from "../config/schema.js";
import { beforeV8FlagsChange } from "./compile-cache.js";
import type { Logger } from "../log/logger.js";

/**
 * The V8 flag behind `youngGeneration: hold`. V8 doubles its young generation (two semi-spaces;
 * 16 → 32 MiB on Node 20) once enough objects survive its scavenges, which any burst of commands
 * causes, and does not give the memory back while the process runs. With a growth factor of 1 it
 * keeps the size it has. Unlike `--max-semi-space-size`, which V8 reads only when the process
 * starts, this flag is read at each growth, so the bot can set it once it has read its config.
 */
export const HOLD_YOUNG_GENERATION_FLAG = "--semi-space-growth-factor=1";

/**
 * The flag to set for `settings`, given the process's own Node options (`process.execArgv` and
 * `NODE_OPTIONS`): none for `grow`, and none when those already size the young generation (a
 * `--max-semi-space-size` or `--semi-space-growth-factor` of the user's wins over the config).
 */
export function youngGenerationFlag(
  settings: MemorySettings,
  nodeOptions: readonly string[],
): string | undefined {
  if (settings.youngGeneration !== "hold") return undefined;
  if (
    nodeOptions.some((o) =>
      /^--(max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor)\b/.test(o),
    )
  )
    return undefined;
  return HOLD_YOUNG_GENERATION_FLAG;
}

/** Size of V8's young generation (new space) now, in MiB. */
export function youngGenerationMiB(): number {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
  return (space?.space_size ?? 0) / (1024 * 1024);
}

/**
 * Applies the `memory` settings to this process's V8. Called by `bot start` once, when the bot
 * has started (so `hold` keeps the size start-up reached). Logged at debug with that size.
 */
export function applyMemoryPolicy(settings: MemorySettings, log: Logger): void {
  const nodeOptions = [
    ...process.execArgv,
    ...(process.env.NODE_OPTIONS ?? "").split(/\s+/).filter(Boolean),
  ];
  const flag = youngGenerationFlag(settings, nodeOptions);
  if (flag === undefined) {
    if (settings.youngGeneration === "hold")
      log.debug("memory.youngGeneration hold: left to the young-generation flag Node was given");
    return;
  }
  // The bundle's compile cache (scripts/chunk-loader.ts) is written first: V8 refuses a code cache
  // made under other flags than the next start runs with.
  beforeV8FlagsChange();
  setFlagsFromString(flag);
  log.debug(
    { youngGenerationMiB: youngGenerationMiB(), flag },
    "memory.youngGeneration hold: V8's young generation keeps its start-up size",
  );
}
