// Where topicbot's own files are at run time: its package folder, and whether the running code is the build (dist/) or the sources.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

// Paths are found by walking up to topicbot's package.json, never by counting `../` from this
// module: the build bundles this module into a shared chunk (dist/bundle/chunks/), whose depth
// differs from the source file's (issue 17, start-up).

/** topicbot's package.json found upward from this module, and its folder. */
interface OwnPackage {
  readonly root: string;
  readonly version: string;
}

let found: OwnPackage | undefined;

/** topicbot's own package: its folder (an absolute path) and version. */
export function ownPackage(): OwnPackage {
  if (found) return found;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const path = join(dir, "package.json");
    if (existsSync(path)) {
      const pkg = JSON.parse(readFileSync(path, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "topicbot" && pkg.version)
        return (found = { root: dir, version: pkg.version });
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find topicbot's package.json");
    dir = parent;
  }
}

/** True when the running code is the build under dist/ (the package as installed), false under tsx or vitest from src/. */
export function runsBuilt(): boolean {
  return fileURLToPath(import.meta.url).startsWith(join(ownPackage().root, "dist") + sep);
}

/** An absolute path inside topicbot's package folder. */
export function ownPath(relative: string): string {
  return join(ownPackage().root, relative);
}
