// topicbot's own package.json: its folder and version (for `--version` and `bot init`), read without loading any command.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** topicbot's own package folder and version (its package.json, found upward from this module). */
export function ownPackage(): { root: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const path = join(dir, "package.json");
    if (existsSync(path)) {
      const pkg = JSON.parse(readFileSync(path, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "topicbot" && pkg.version) return { root: dir, version: pkg.version };
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find topicbot's package.json");
    dir = parent;
  }
}
