// `npm run bench`: runs each benchmark in its own process, prints figures beside baselines, writes docs/performance.md.
// `npm run bench -- dispatch memory` runs only those and leaves the report alone.
// `npm run bench -- --profile dispatch` also writes a CPU profile of it and lists its top functions.
import { spawn } from "node:child_process";
import { readdir, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import { parseResult, type BenchResult, type Check, type Row } from "./lib.js";
import { topFunctions } from "./profile.js";

const ALL = [
  "dispatch",
  "args",
  "reply",
  "memory",
  "startup",
  "sandbox",
  "cluster",
  "stream",
  "realm-size",
  "record",
] as const;
const report = fileURLToPath(new URL("../docs/performance.md", import.meta.url));

const profileDir = fileURLToPath(new URL("../.bench-profiles/", import.meta.url));

/** Runs `bench/<name>.ts` in a fresh process (with --expose-gc) and reads its result line. */
function runOne(name: string, profile = false): Promise<BenchResult> {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  // The tsx loader thread writes a profile too: each run gets a folder, the largest file is the bench's.
  const cpuProf = profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}${name}`] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...cpuProf, "--expose-gc", "--import", "tsx", file], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.once("exit", (code) => {
      const result = parseResult(out);
      if (code === 0 && result) resolve(result);
      else reject(new Error(`benchmark ${name} failed (exit ${code})\n${out}`));
    });
  });
}

/** Three significant digits, thousands grouped. */
function fmt(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return "–";
  const digits = Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : Math.abs(n) >= 1 ? 2 : 3;
  return n.toLocaleString("en", { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** topicbot ÷ baseline, with a word on which way is good. */
function ratio(row: Row): string {
  if (row.baseline === null || row.baseline === 0) return "–";
  const r = row.value / row.baseline;
  return `${fmt(r)}×`;
}

function table(result: BenchResult): string[] {
  return [
    "| metric | topicbot | baseline | topicbot ÷ baseline | better | baseline is |",
    "| --- | ---: | ---: | ---: | --- | --- |",
    ...result.rows.map(
      (r) =>
        `| ${r.metric} | ${fmt(r.value)} ${r.unit} | ${r.baseline === null ? "–" : `${fmt(r.baseline)} ${r.unit}`} | ${ratio(r)} | ${r.better} | ${r.baselineIs ?? ""} |`,
    ),
  ];
}

const checkLine = (c: Check): string =>
  `- ${c.ok ? "PASS" : c.goal ? "MISS" : "FAIL"}: ${c.goal ? "goal: " : ""}${c.what}`;

const args = process.argv.slice(2);
const profiling = args.includes("--profile");
const wanted = args.filter((a) => a !== "--profile");
for (const name of wanted)
  if (!(ALL as readonly string[]).includes(name))
    throw new Error(`unknown benchmark "${name}"; known: ${ALL.join(", ")}`);
const names = wanted.length > 0 ? wanted : [...ALL];
const load = loadavg();
/** What changed in how the figures are made, and why (kept in the report until the next change). */
const METHOD_CHANGE = [
  "**How these figures are made changed in December 2026 (issue 37).** Before, grammY, the floor",
  "and topicbot shared one process and each dispatch round began with `gc()`, which threw away",
  "grammY's optimized code every round (about a quarter of its figure) and not topicbot's (it kept",
  "one instance of each per-message class alive for it); and the reply bench's only baseline was a",
  "bare bot that waits for all of a poll's replies before polling again, slower than a bot has to be.",
  "Now every contender runs in a fresh process of its own (the reply bench: against a fresh sandbox",
  "of its own too), alternating, medians of rounds, no `gc()` anywhere; the reply bench shows two",
  "baselines, the lane-ordered bare bot and a concurrent one that answers at once and polls again at",
  "once, and its goals are judged against the concurrent one. The figures were measured on a loaded",
  "machine (other engineers' builds and tests on the same two cores): read the ratios, each",
  "measured in the same run.",
  "",
  "**What changed since (December 2026, second pass).** The client takes undici by its public",
  "entry (no deep imports of its files, no patch of its prototype), and the bundle inlines undici and",
  "zod whole and loads nothing from the installed packages (issue 35 item 5): `bot start` now",
  "evaluates undici's index (fetch, WebSocket, ...), which costs start-up CPU (importing the bundle's",
  "index: 104-106 ms against 72-76 ms, code cache warm, same machine, 5 fresh processes each);",
  "`src/node-crypto.ts` went with it (undici's index loads node:crypto anyway). The V8 code-cache",
  "chunk loader stays: its A/B, the same import with and without the cache, is 72-76 ms against",
  '115-128 ms (bench/README.md, "Machinery and its A/B figures"). The cluster benchmark no longer',
  "crashes with EPIPE (it stops every node it started before closing the sandbox and retries its",
  "own sends on a network error), and the sandbox's POST /messages ratio to a bare server is the",
  "median of 15 alternating short rounds instead of two figures measured minutes apart.",
  "",
  "**What changed since (December 2026, third pass).** Start-up: the bundle no longer loads Node's",
  "own copy of undici (undici's cookie helpers read `globalThis.Headers`; a build step stops that)",
  "and its entries and `import()`ed chunks run under the chunk loader (4 ES modules where `bot start`",
  "met 36). The sandbox does less per POST /messages (a hand-written form parser, one literal per",
  "message event). The reply bench measures its fixed rate after 5 s at that rate (V8 optimizes what",
  "one command at a time makes hot over the first seconds; they are a row of their own), splits CPU",
  "per reply into the main thread and the others, and has a fourth contender, the same bot recording",
  "a cassette (issue 33). Two rows moved between runs of that pass: dispatch at 40,000 events",
  "was 0.42-0.79× grammY in three runs the same morning (at 400,000: 0.35-0.40×), and idle RSS is",
  "two-valued for both bots (a glibc thread arena: the bot 73 or 83 MiB, the bare bot 61 or 71).",
  "",
  "**What changed since (December 2026, fourth pass).** The cassette recorder does its work on a",
  "thread of its own (the bot's thread keeps each exchange's text and hands batches over), and",
  "issue 33's goal rows are judged on the bot's main thread and its latency, with all threads' CPU",
  "beside them. This run had the machine to itself, but the machine was about three times slower",
  "than the third pass's (the bot's CPU per reply at saturation 0.25 ms against 0.08 ms, the bare",
  "bot's likewise) and noisier: the same build's dispatch figure at 400,000 events moved from 5.4",
  "to 13.0 µs per event between fresh processes minutes apart (a full collection in some), which",
  "is the 0.90× of this report; read the ratios, and the rounds bench/README.md describes.",
  "",
  "**What changed since (December 2026, fifth pass).** The poll loop does less per poll: one",
  "watchdog timer per queue (a deadline moved per poll and per chunk, where a timer was set and",
  "cleared for each: 4 timers and 8 clears per reply at 200/s), the handler time limits' sweep",
  "stops itself instead of an interval per command, and the poll loop makes a promise only where",
  "it waits (39 promises per reply at 200/s, 65 before). `bench/poll-loop.ts` puts it at 3-5 µs",
  "per poll; the reply rows cannot see that much. This run had the machine to itself from its",
  "start, but the machine drifted during the session: the same old build's CPU per reply at 200/s",
  "was 0.42-0.49 ms in the morning and 0.57-0.63 ms minutes after this run, so this report's",
  "saturation ratio (1.88×; 1.68× in a morning run) moved with it, not with the change (a copy of",
  "the reply phases, the old and new builds alternating: 71-79 µs against 74-81 at saturation).",
  "",
  "**What changed since (December 2026, sixth pass).** `bench/record.ts` measures the built package,",
  "as the other benchmarks do: from the sources, the recorder's thread ran through tsx and started",
  "tsx's loader thread of its own, two more V8 isolates compiling and collecting beside the bot's,",
  "which no user runs (the bot's main thread +13-32% with recording then, +6-8% now). Its recorder",
  "alone waits for the thread every 2,000 exchanges and fails if the recording stopped: it had made",
  "exchanges faster than any bot, the thread fell 16,384 behind, the recording stopped (as it does",
  "when a disk hangs) and the figure (0.25 µs per exchange) measured a recorder doing nothing. A",
  "control contender runs the bot beside a thread that only spins for as long as the recorder's",
  "thread works. It times 30,000 commands per process, not 10,000.",
];

const started = performance.now();
const results: BenchResult[] = [];
for (const name of names) {
  process.stderr.write(`${name}\n`);
  // A benchmark that crashes (on a loaded machine a child may die of it) is a failed check in the
  // report: the others' figures are still written.
  const result = await runOne(name, profiling).catch((error: unknown): BenchResult => ({
    name,
    title: `${name}: did not finish`,
    method: "",
    rows: [],
    checks: [
      { what: `bench/${name}.ts ran to the end: ${String(error).split("\n")[0]}`, ok: false },
    ],
    seconds: 0,
  }));
  results.push(result);
  console.log(`\n${result.title} (${result.seconds.toFixed(1)} s)`);
  console.log(table(result).join("\n"));
  for (const c of result.checks) console.log(checkLine(c));
  if (profiling) {
    const dir = `${profileDir}${name}`;
    const files = await Promise.all(
      (await readdir(dir)).map(async (f) => ({ f, at: (await stat(`${dir}/${f}`)).mtimeMs })),
    );
    const newest = files.sort((a, b) => b.at - a.at).slice(0, 2);
    const sizes = await Promise.all(
      newest.map(async ({ f }) => ({ f, size: (await stat(`${dir}/${f}`)).size })),
    );
    const written = `${dir}/${sizes.sort((a, b) => b.size - a.size)[0]!.f}`;
    console.log(
      `\nCPU profile: ${written} (open it in Chrome DevTools); top functions by self time:`,
    );
    for (const line of await topFunctions(written, 25)) console.log(`  ${line}`);
  }
}

const seconds = (performance.now() - started) / 1000;
const failed = results.flatMap((r) => r.checks).filter((c) => !c.ok && !c.goal);
console.log(
  `\n${names.length} benchmarks in ${seconds.toFixed(0)} s; ${failed.length} checks failed`,
);

if (wanted.length === 0 && !profiling) {
  const cpu = cpus();
  const lines = [
    "# Performance",
    "",
    "Written by `npm run bench` (`bench/run.ts`); do not edit by hand. `bench/README.md` explains",
    "how each figure is made and how to read it. Every figure stands beside a baseline measured in",
    "the same run on the same machine, so the ratio means more than the absolute number.",
    "",
    `- Command: \`npm run bench\``,
    `- Date: ${new Date().toISOString()}`,
    `- Node: ${process.version} (${platform()} ${release()})`,
    `- Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Load average when the run began: ${load.map((l) => l.toFixed(2)).join(", ")} (a shared machine: compare ratios, not absolutes)`,
    `- Total time: ${seconds.toFixed(0)} s`,
    "",
    ...METHOD_CHANGE,
    "",
  ];
  for (const r of results) {
    lines.push(`## ${r.title}`, "", r.method, "", ...table(r), "");
    if (r.checks.length > 0) lines.push(...r.checks.map(checkLine), "");
    lines.push(`(${r.seconds.toFixed(1)} s)`, "");
  }
  await writeFile(report, lines.join("\n"));
  console.log(`report written to docs/performance.md`);
}
process.exit(failed.length > 0 ? 1 : 0);
