// npm's `prepare` step: builds dist/ unless it is already newer than every source file. `npx bot` in a clone installs the clone into npx's cache and runs `prepare` again; skipping the build when nothing changed makes that first run start at once.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { URL } from "node:url";

const root = new URL("..", import.meta.url).pathname;
const SOURCES = [
  "src",
  "plugins",
  "web",
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
  "scripts/bundle.mjs",
];

/** The newest modification time under a path (files and folders, recursively). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce(
    (max, name) => Math.max(max, newest(join(path, name))),
    stat.mtimeMs,
  );
}

const built = join(root, "dist", "bundle", "cli.js");
// An installed package (a tarball or the registry's) ships dist/ and no sources: nothing to build.
if (!existsSync(join(root, "src"))) process.exit(0);
const sources = Math.max(...SOURCES.map((p) => newest(join(root, p))));
const console = join(root, "dist", "web", "app.js");
if (
  existsSync(built) &&
  existsSync(console) &&
  statSync(built).mtimeMs > sources &&
  !process.env.TOPICBOT_FORCE_BUILD
) {
  process.stdout.write(
    "dist/ is up to date; skipping the build (TOPICBOT_FORCE_BUILD=1 forces it)\n",
  );
} else {
  const result = spawnSync("npm", ["run", "build"], {
    cwd: root,
    stdio: "inherit",
    shell: process.platform === "win32",
  });
  process.exit(result.status ?? 1);
}
