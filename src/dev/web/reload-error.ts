// Why a plugin reload failed, for the console: the message and the plugin file and line at fault.
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

/** A failed reload as the console shows it. */
export interface ReloadFailure {
  error: string;
  /** `plugins/greet.ts:3:10` (relative to the working directory), when the error names a place. */
  location?: string;
}

/** `/abs/file.ts:3:10`, `file:///abs/file.ts?v=2:3:10` or `(…/file.ts:3)` in a message or stack. */
const PLACE = /((?:file:\/\/)?\/[^\s():?]+\.[cm]?[jt]sx?)(?:\?[^\s:()]*)?:(\d+)(?::(\d+))?/g;

/**
 * Describes a reload error, finding the first place in the plugin's own code (not in
 * node_modules or the framework) that its message or stack (or its cause's) names.
 *
 * @example
 * describeReloadError(new Error("/p/greet.ts:3:10: ERROR: Expected \";\""), "greet.ts");
 * // { error: '/p/greet.ts:3:10: ERROR: Expected ";"', location: "../p/greet.ts:3:10" }
 */
export function describeReloadError(error: unknown, cwd = process.cwd()): ReloadFailure {
  const chain: unknown[] = [];
  for (let e: unknown = error; e !== undefined && chain.length < 5;)
    e = chain.push(e) && e instanceof Error ? e.cause : undefined;
  // Messages first (a syntax error names its place there), then stacks from the innermost cause out.
  const texts = [
    ...chain.map((e) => (e instanceof Error ? e.message : String(e))),
    ...chain.reverse().map((e) => (e instanceof Error ? (e.stack ?? "") : "")),
  ];
  const message = error instanceof Error ? error.message : String(error);
  for (const text of texts)
    for (const match of text.matchAll(PLACE)) {
      const path = match[1]!.startsWith("file:") ? fileURLToPath(match[1]!) : match[1]!;
      if (/node_modules|\/dist\/src\/|\/src\/(runtime|dev|config)\//.test(path)) continue;
      const where = `${relative(cwd, path) || path}:${match[2]}${match[3] ? `:${match[3]}` : ""}`;
      return { error: message, location: where };
    }
  return { error: message };
}
