// What `bot start` needs of its storage, checked the same way by `bot check` and `bot start`: writable, readable formats.
import * as nodeFs from "node:fs";
import { constants } from "node:fs";
import { access, open, stat, unlink } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { ConfigError } from "../config/errors.js";
import type { StorageSettings } from "../config/schema.js";
import type { JournalFs } from "../state/journal.js";

/** The file store's path and its delivery journal's (`open-store.ts`'s naming). */
function filesOf(storage: StorageSettings, baseDir: string): string[] {
  if (storage.type !== "file") return [];
  const path = isAbsolute(storage.path) ? storage.path : resolve(baseDir, storage.path);
  return [path, `${path}.delivery.jsonl`];
}

/** The nearest directory of `dir` and its parents that exists (what `mkdir -p` would create under). */
async function nearestExisting(dir: string): Promise<string> {
  for (let d = dir; ; d = dirname(d)) {
    const found = await stat(d).catch(() => undefined);
    if (found) return d;
    if (dirname(d) === d) return d;
  }
}

const FIX =
  "give the bot's user write access to it (e.g. `chown -R <bot user> <dir>`; with systemd, StateDirectory= does it), or point storage.path somewhere writable";

/**
 * Proves the storage writable by writing: a probe file created and removed in the store's directory
 * (or the nearest parent that exists, where `bot start` would create it), and the store and journal
 * files opened for writing when they exist. `access(2)` would say yes to root on a read-only mount;
 * a write does not. A failure is a ConfigError naming `storage.path` and the fix.
 */
export async function checkStorageWritable(
  storage: StorageSettings,
  configFile: string,
  baseDir: string,
): Promise<void> {
  const [store] = filesOf(storage, baseDir);
  if (!store) return;
  const dir = await nearestExisting(dirname(store));
  const probe = resolve(dir, `.topicbot-write-check-${process.pid}`);
  try {
    const handle = await open(probe, "wx", 0o600);
    await handle.close();
    await unlink(probe);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(
      configFile,
      "storage.path",
      `cannot write in ${dir} (${code}), where the store ${store} is kept: ${FIX}`,
    );
  }
  for (const file of filesOf(storage, baseDir)) {
    try {
      await access(file, constants.F_OK);
    } catch {
      continue;
    }
    try {
      const handle = await open(file, "r+");
      await handle.close();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new ConfigError(
        configFile,
        "storage.path",
        `cannot read and write ${file} (${code}): ${FIX}`,
      );
    }
  }
}

/**
 * The ConfigError (exit 2) for a storage that failed to open: a store or journal of another
 * format, or a damaged one. `bot start` and `bot check` both report it through here, in the same words.
 */
export function storageOpenError(error: unknown, configFile: string): ConfigError {
  if (error instanceof ConfigError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ConfigError(configFile, "storage", message.replace(/^storage: /, ""));
}

/** The journal of a file store, when it exists (`bot check` reads it only then, creating nothing). */
export async function existingJournal(
  storage: StorageSettings,
  baseDir: string,
): Promise<string | undefined> {
  const journal = filesOf(storage, baseDir)[1];
  if (!journal) return undefined;
  return (await stat(journal).catch(() => undefined)) ? journal : undefined;
}

const readOnly = (): never => {
  throw new Error("bot check reads the delivery journal only");
};

/**
 * The file calls of a delivery journal opened to be read only (`bot check`, while the bot may be
 * appending to it): no directory made, no torn tail cut, the file opened for reading.
 */
export const READ_ONLY_JOURNAL: JournalFs = {
  readFileSync: nodeFs.readFileSync,
  closeSync: nodeFs.closeSync,
  openSync: ((path: nodeFs.PathLike) => nodeFs.openSync(path, "r")) as typeof nodeFs.openSync,
  mkdirSync: (() => undefined) as typeof nodeFs.mkdirSync,
  truncateSync: () => undefined,
  writeSync: readOnly,
  fsyncSync: readOnly,
  renameSync: readOnly,
  unlinkSync: readOnly,
};
