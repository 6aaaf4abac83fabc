// Watching plugin folders for `bot dev` in a way that survives atomic saves (a temp file renamed over the original).
import { readdirSync, statSync, watch, type FSWatcher } from "node:fs";
import { join, relative } from "node:path";

/** Folders never watched: dependencies and hidden folders (.git, editor state). */
const IGNORED_DIR = /^(node_modules|\..*)$/;

/** A set of watchers to close together. */
export interface FolderWatch {
  close(): void;
}

/**
 * Watches `root` and every folder below it, each with its own non-recursive watcher, and calls
 * `onChange` with the changed file's path relative to `root`. Node's recursive watch on Linux
 * watches files one by one, so it loses a file replaced by rename (JetBrains IDEs, Emacs,
 * `git checkout`); a folder's watcher sees the rename and keeps working. Folders created later
 * are watched as they appear. `recursive: false` watches `root` alone.
 */
export function watchFolder(
  root: string,
  onChange: (path: string) => void,
  options: { recursive?: boolean } = {},
): FolderWatch {
  const watchers = new Map<string, FSWatcher>();
  const add = (dir: string): void => {
    if (watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        if (name === null) return;
        const path = join(dir, String(name));
        if (options.recursive !== false && isFolder(path)) return addTree(path);
        onChange(relative(root, path));
      });
    } catch {
      return; // gone before it could be watched
    }
    watcher.on("error", () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
  };
  const addTree = (dir: string): void => {
    add(dir);
    let entries: string[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !IGNORED_DIR.test(e.name))
        .map((e) => e.name);
    } catch {
      return;
    }
    for (const name of entries) addTree(join(dir, name));
  };
  if (options.recursive === false) add(root);
  else addTree(root);
  return {
    close() {
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory() && !IGNORED_DIR.test(path.split(/[\\/]/).pop() ?? "");
  } catch {
    return false;
  }
}
