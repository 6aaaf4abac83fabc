// Reads a V8 CPU profile (`node --cpu-prof`) and lists the functions that took the most self time.
import { readFile } from "node:fs/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}

/**
 * The top `count` functions by self time, as `share%  function  file:line:column`, the share of
 * the time the process was busy (idle time left out). Modules loaded through tsx are compiled
 * onto few lines, so the column is what tells two functions of one file apart.
 */
export async function topFunctions(file: string, count = 25): Promise<string[]> {
  const profile = JSON.parse(await readFile(file, "utf8")) as { nodes: ProfileNode[] };
  const self = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    if (functionName === "(idle)") continue;
    total += hits;
    const where = url.replace(/^.*\/(src|bench|node_modules)\//, "$1/");
    const key = `${functionName || "(anonymous)"}  ${where}:${lineNumber + 1}:${columnNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + hits);
  }
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, hits]) => `${((hits / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await topFunctions(process.argv[2]!, Number(process.argv[3] ?? 25)))
    console.log(line);
}
