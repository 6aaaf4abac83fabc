// `bot init [dir]`: scaffold a bot project (config, a plugin, its test, README), never overwriting a file.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { projectFiles } from "../templates.js";
import { ownPackage } from "../../own-files.js";
import type { Output } from "../output.js";

export interface InitOptions {
  dir: string;
  force: boolean;
  /** The `topicbot` dependency spec to write; default: see `topicbotSpec`. */
  topicbot?: string;
}

/**
 * The dependency spec for the new project: the installed version's range when topicbot runs from
 * node_modules and came from a registry; the same tarball or folder when it was installed from one
 * (`npm install ./topicbot-0.1.0.tgz`: a range would ask the registry for a package it may not
 * have); `file:` and the checkout's path when it runs from a clone, so `npm install` uses that
 * clone and the two folders can move together. Paths are written relative to the new project.
 */
export function topicbotSpec(own: { root: string; version: string }, projectDir: string): string {
  const fromFile = (target: string): string => {
    const path = relative(resolve(projectDir), target).split(sep).join("/");
    return `file:${path === "" ? "." : path}`;
  };
  if (!own.root.split(/[\\/]/).includes("node_modules")) return fromFile(own.root);
  const local = installedFromFile(own.root);
  return local === undefined ? `^${own.version}` : fromFile(local);
}

/**
 * The tarball or folder an installed topicbot came from, when npm's hidden lockfile
 * (`node_modules/.package-lock.json`, written by npm 7 and later) records a `file:` source for it;
 * undefined when it came from a registry or the lockfile is missing or unreadable.
 */
function installedFromFile(root: string): string | undefined {
  const modules = dirname(root);
  const project = dirname(modules);
  try {
    const lock = JSON.parse(readFileSync(join(modules, ".package-lock.json"), "utf8")) as {
      packages?: Record<string, { resolved?: unknown }>;
    };
    const resolved = lock.packages?.[`node_modules/${basename(root)}`]?.resolved;
    if (typeof resolved !== "string" || !resolved.startsWith("file:")) return undefined;
    return resolve(project, resolved.slice("file:".length));
  } catch {
    return undefined;
  }
}

/** A valid npm package name made from a folder name. */
export function packageName(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+|-+$/g, "");
  return name || "my-bot";
}

export async function runInit(options: InitOptions, out: Output): Promise<number> {
  const root = resolve(options.dir);
  const files = projectFiles({
    name: packageName(root),
    topicbotVersion: options.topicbot ?? topicbotSpec(ownPackage(), root),
  });
  const clashes = Object.keys(files).filter((path) => existsSync(join(root, path)));
  if (clashes.length > 0 && !options.force) {
    out.stderr(
      `error: ${root} already has ${clashes.join(", ")}; nothing was written (use --force to overwrite)`,
    );
    return 1;
  }
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  const rel = relative(process.cwd(), root) || ".";
  const shown = rel.startsWith("..") ? root : rel;
  out.stdout(`Created a topicbot project in ${shown}:`);
  for (const path of Object.keys(files)) out.stdout(`  ${path}`);
  out.stdout("");
  out.stdout("Next:");
  if (shown !== ".") out.stdout(`  cd ${/^[\w./-]+$/.test(shown) ? shown : JSON.stringify(shown)}`);
  out.stdout("  npm install");
  out.stdout("  npm test      # the hello plugin's test, against the embedded server");
  out.stdout(
    "  npm start     # the bot, against the embedded sandbox until you configure a server",
  );
  return 0;
}
