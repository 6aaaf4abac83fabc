// Test helper: the packed topicbot tarball installed, offline, into a project made by `bot init`.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
export const checkout = fileURLToPath(new URL("../..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** A scratch project: its folder, and its own installed `bot` executable (from the tarball). */
export interface ScratchProject {
  dir: string;
  bin: string;
}

/**
 * Packs this checkout (`npm pack`, the build `pretest` made), runs the packed `bot init`, and
 * installs the tarball with `npm install --offline`. The project's lockfile is this checkout's,
 * so every dependency resolves from what `npm ci` put in the npm cache: no registry is asked.
 */
export async function createScratchProject(): Promise<ScratchProject> {
  const root = await mkdtemp(join(tmpdir(), "topicbot-e2e-"));
  const env = { ...process.env, NODE_OPTIONS: "", npm_config_update_notifier: "false" };
  const { stdout } = await run(
    npm,
    ["pack", "--ignore-scripts", "--json", "--pack-destination", root],
    { cwd: checkout, env },
  );
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  const dir = join(root, "project");
  await run(
    process.execPath,
    [join(checkout, "bin", "bot.js"), "init", dir, "--topicbot", `file:../${filename}`],
    { env },
  );

  const pkg = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const own = JSON.parse(await readFile(join(checkout, "package.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const lock = JSON.parse(await readFile(join(checkout, "package-lock.json"), "utf8")) as {
    name: string;
    packages: Record<string, unknown>;
  };
  lock.name = pkg.name as string;
  lock.packages[""] = {
    name: pkg.name,
    version: pkg.version,
    dependencies: pkg.dependencies,
    devDependencies: pkg.devDependencies,
  };
  lock.packages["node_modules/topicbot"] = {
    version: own.version,
    resolved: `file:../${filename}`,
    dependencies: own.dependencies,
    bin: own.bin,
    engines: own.engines,
    peerDependencies: own.peerDependencies,
    peerDependenciesMeta: own.peerDependenciesMeta,
  };
  await writeFile(join(dir, "package-lock.json"), JSON.stringify(lock, null, 2));
  try {
    await run(npm, ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], {
      cwd: dir,
      env,
    });
  } catch (error) {
    throw new Error(
      `npm install --offline failed in the scratch project (run \`npm ci\` in the checkout first so the npm cache holds every dependency):\n${(error as { stderr?: string }).stderr ?? String(error)}`,
    );
  }
  return { dir, bin: join(dir, "node_modules", "topicbot", "bin", "bot.js") };
}
