// Benchmark helpers: results and their JSON hand-off, percentiles, memory; the in-memory bot comes from test/helpers.
export { messageEvent, startInMemoryBot } from "../test/helpers/in-memory-bot.js";
import { readFileSync } from "node:fs";
import type * as Topicbot from "../src/index.js";
import type * as TopicbotClient from "../src/client/index.js";

/** One line of a result table: a figure, the baseline measured beside it, and how they compare. */
export interface Row {
  metric: string;
  value: number;
  baseline: number | null;
  unit: string;
  /** `higher` when more is better (throughput), `lower` when less is (latency, memory). */
  better: "higher" | "lower";
  /** What the baseline is, in a few words. */
  baselineIs?: string;
}

/** A pass/fail statement a benchmark makes about its own figures (e.g. "memory growth is flat"). */
export interface Check {
  what: string;
  ok: boolean;
  /** A performance goal: reported as PASS or MISS, and a miss does not fail the run. */
  goal?: boolean;
}

export interface BenchResult {
  name: string;
  title: string;
  /** What was measured and how, for the report. */
  method: string;
  rows: Row[];
  checks: Check[];
  seconds: number;
}

const MARK = "BENCH-RESULT ";

/** Runs a benchmark as a child process's main: progress on stderr, the result as one line on stdout. */
export async function main(run: () => Promise<Omit<BenchResult, "seconds">>): Promise<void> {
  const started = performance.now();
  try {
    const result = await run();
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`${MARK}${JSON.stringify({ ...result, seconds })}\n`);
    process.exit(0);
  } catch (error) {
    console.error(error);
    process.exit(1);
  }
}

/** Reads the result line a benchmark child printed. */
export function parseResult(stdout: string): BenchResult | undefined {
  const line = stdout.split("\n").find((l) => l.startsWith(MARK));
  return line ? (JSON.parse(line.slice(MARK.length)) as BenchResult) : undefined;
}

export const progress = (text: string): void => {
  process.stderr.write(`  ${text}\n`);
};

/** The p-th percentile (0-100) of the samples, nearest rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (samples: readonly number[]): number => percentile(samples, 50);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves when `done()` is true, checking every few milliseconds; rejects after `timeoutMs`. */
export async function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(2);
  }
}

/** Collects garbage (the benchmarks run with --expose-gc) and reads memory, in MiB. */
export async function memory(): Promise<{ rss: number; heap: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await sleep(20);
  }
  const m = process.memoryUsage();
  return { rss: m.rss / 2 ** 20, heap: m.heapUsed / 2 ** 20 };
}

/**
 * Compiles `bench/<name>.ts` (types stripped, nothing bundled) to `dist/bench/<name>.js`, so a
 * contender runs as plain JavaScript (no tsx loader thread) and resolves packages from the checkout.
 */
export async function compileToDist(name: string): Promise<string> {
  const { readFile, mkdir, writeFile } = await import("node:fs/promises");
  const { fileURLToPath } = await import("node:url");
  const { transform } = await import("esbuild");
  const root = new URL("../", import.meta.url);
  const source = await readFile(fileURLToPath(new URL(`bench/${name}.ts`, root)), "utf8");
  const { code } = await transform(source, { loader: "ts", format: "esm", target: "node20" });
  await mkdir(fileURLToPath(new URL("dist/bench/", root)), { recursive: true });
  const out = fileURLToPath(new URL(`dist/bench/${name}.js`, root));
  await writeFile(out, code);
  return out;
}

const checkout = new URL("../", import.meta.url);

/** Imports a file of the build, or says to build first (`bench` names the benchmark). */
async function importBuilt<T>(file: string, bench: string): Promise<T> {
  try {
    return (await import(new URL(file, checkout).href)) as T;
  } catch (error) {
    throw new Error(`${bench} measures the build: run \`npm run build\` first`, { cause: error });
  }
}

/**
 * topicbot as users run it: the built package (`npm run bench` builds first), not the sources
 * through tsx, whose `keepNames` wraps every closure made in a `defineProperty` call (and whose
 * worker threads load tsx and its loader thread again). File URLs, not the package name: tsx maps
 * `topicbot` to the sources (tsconfig paths).
 */
export async function builtTopicbot(
  bench: string,
): Promise<typeof Topicbot & typeof TopicbotClient> {
  return {
    ...(await importBuilt<typeof Topicbot>("dist/bundle/index.js", bench)),
    ...(await importBuilt<typeof TopicbotClient>("dist/bundle/client.js", bench)),
  };
}

/** An export of the build that no entry exports: the chunk holding `source` (through the build's metafile). */
export async function builtInternal<T>(source: string, name: string, bench: string): Promise<T> {
  let meta: { outputs: Record<string, { inputs: Record<string, unknown>; exports: string[] }> };
  try {
    meta = JSON.parse(
      readFileSync(new URL("dist/bundle-meta.json", checkout), "utf8"),
    ) as typeof meta;
  } catch (error) {
    throw new Error(`${bench} measures the build: run \`npm run build\` first`, { cause: error });
  }
  const chunk = Object.entries(meta.outputs).find(
    ([, o]) => source in o.inputs && o.exports.includes(name),
  )?.[0];
  if (!chunk) throw new Error(`${bench}: no chunk of dist/bundle exports ${name} from ${source}`);
  return (await importBuilt<Record<string, T>>(chunk, bench))[name]!;
}
