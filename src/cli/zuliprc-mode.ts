// The warning for a zuliprc holding an API key that other users of the machine can read (mode 0644).
import { statSync, readFileSync } from "node:fs";
import { parseIni } from "../config/zuliprc.js";

/**
 * The warning for `path` when it holds a key (`[api] key=`) and its mode lets the group or others
 * read it, else undefined. Never throws: a file that cannot be read was reported when loading.
 */
export function zuliprcModeWarning(path: string): string | undefined {
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) === 0) return undefined;
    if (!parseIni(readFileSync(path, "utf8")).get("api")?.get("key")) return undefined;
    return `${path} holds the bot's API key and is readable by other users (mode ${mode.toString(8).padStart(4, "0")}): chmod 600 ${path}`;
  } catch {
    return undefined;
  }
}
