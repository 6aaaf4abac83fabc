// Attributes the CPU of the reply bench's saturation phase, per reply, to groups of code (bot vs bare loop).
// Usage: REPLY_PROFILE=<dir> node --import tsx bench/run.ts reply, then
//        node --import tsx bench/reply-attribution.ts <dir> [--files] [--functions] [--fixed]
// (`--fixed`: the fixed-rate phase instead, where each reply mostly has its polls to itself.)
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface Phase {
  window: [number, number];
  replies: number;
  /** The fixed-rate phase of the same round (`--fixed` attributes it instead of saturation). */
  fixed?: { window: [number, number]; replies: number };
}

/** Bundle chunks' source maps, loaded once each. */
const maps = new Map<string, SourceMap | null>();
function sourceMapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** Where a frame's code comes from: the source file, mapped back through the bundle's source map. */
function origin(frame: CallFrame): { group: string; file: string } {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === "(garbage collector)") return { group: "GC", file: "GC" };
    if (functionName === "(program)") return { group: "(program)", file: "(program)" };
    return { group: "native (no script)", file: `native ${functionName}` };
  }
  if (url.startsWith("node:")) {
    const name = url.replace(/^node:(internal\/)?/, "");
    const top = name.split("/")[0]!;
    const group = /^(net|stream|streams|tcp_wrap|stream_base_commons)/.test(name)
      ? "node: net/stream"
      : /^(timers|process\/task_queues|async_hooks|process\/promises)/.test(name)
        ? "node: timers/tasks/promises"
        : /^(fs|fs\/)/.test(name)
          ? "node: fs"
          : /^(events|event_target|abort_controller)/.test(name)
            ? "node: events/abort"
            : /^(url|querystring|util|buffer|errors|validators)/.test(name)
              ? "node: url/util/buffer"
              : `node: ${top}`;
    return { group, file: url };
  }
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return { group: pkg[1]!, file: path.replace(/^.*node_modules\//, "") };
  if (/\/dist\/bundle\//.test(path)) {
    const map = sourceMapOf(path);
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as
      { originalSource?: string } | undefined;
    const source = entry?.originalSource;
    if (!source) return { group: "bundle (unmapped)", file: path };
    const src = source.replace(/^.*?\/(src|node_modules)\//, "$1/");
    const inModules = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(src);
    if (inModules) return { group: `${inModules[1]} (bundled)`, file: src };
    const dirs = src.split("/");
    const group =
      dirs.length > 2 ? `${dirs.slice(0, dirs[1] === "runtime" ? 3 : 2).join("/")}` : src;
    return { group, file: src };
  }
  return {
    group: relative(process.cwd(), path).split("/")[0] ?? path,
    file: relative(process.cwd(), path),
  };
}

/** Self time (µs) per group, per file and per function over the window, from one profile. */
function attribute(profileFile: string, window: [number, number]) {
  const profile = JSON.parse(readFileSync(profileFile, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const groups = new Map<string, number>();
  const files = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  let t = profile.startTime;
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  // Each sample counts as the profile's usual interval: the gap after a sample also holds the
  // times the sampler itself was not scheduled (a loaded machine), which are not this code's.
  const interval = median(profile.timeDeltas);
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (t < window[0] || t > window[1]) continue;
    const node = byId.get(profile.samples[i]!)!;
    if (node.callFrame.functionName === "(idle)") continue;
    const { group, file } = origin(node.callFrame);
    busy += interval;
    add(groups, group, interval);
    add(files, file, interval);
    add(functions, `${node.callFrame.functionName || "(anonymous)"}  ${file}`, interval);
  }
  return { busy, groups, files, functions };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const dir = process.argv[2];
if (!dir)
  throw new Error(
    "usage: reply-attribution.ts <REPLY_PROFILE dir> [--files] [--functions] [--fixed]",
  );
const recorded = JSON.parse(readFileSync(join(dir, "saturation.json"), "utf8")) as {
  bot: Phase[];
  bare: Phase[];
};
const fixedPhase = (p: Phase): Phase => {
  if (!p.fixed)
    throw new Error(`${dir}/saturation.json has no fixed-rate windows (an older bench)`);
  return { window: p.fixed.window, replies: p.fixed.replies };
};
const phases = process.argv.includes("--fixed")
  ? { bot: recorded.bot.map(fixedPhase), bare: recorded.bare.map(fixedPhase) }
  : recorded;
type Attribution = ReturnType<typeof attribute>;
const sum = (parts: Attribution[], pick: (a: Attribution) => Map<string, number>) => {
  const out = new Map<string, number>();
  for (const p of parts) for (const [k, v] of pick(p)) out.set(k, (out.get(k) ?? 0) + v);
  return out;
};
const bot = phases.bot.map((p, i) => attribute(join(dir, `bot-${i + 1}.cpuprofile`), p.window));
// The concurrent bare bot (plain JavaScript since the bench compiles it: one profile per process).
const bare = phases.bare.map((p, i) =>
  attribute(join(dir, `concurrent-${i + 1}.cpuprofile`), p.window),
);
const botReplies = phases.bot.reduce((n, p) => n + p.replies, 0);
const bareReplies = phases.bare.reduce((n, p) => n + p.replies, 0);

function table(title: string, pick: (a: Attribution) => Map<string, number>, limit: number): void {
  const b = sum(bot, pick);
  const f = sum(bare, pick);
  const keys = [...new Set([...b.keys(), ...f.keys()])];
  const per = (m: Map<string, number>, k: string, n: number) => (m.get(k) ?? 0) / n;
  keys.sort(
    (x, y) =>
      per(b, y, botReplies) -
      per(f, y, bareReplies) -
      (per(b, x, botReplies) - per(f, x, bareReplies)),
  );
  console.log(
    `\n| ${title} | bot µs/reply | bare µs/reply | difference |\n| --- | ---: | ---: | ---: |`,
  );
  for (const k of keys.slice(0, limit)) {
    const x = per(b, k, botReplies);
    const y = per(f, k, bareReplies);
    console.log(`| ${k} | ${x.toFixed(1)} | ${y.toFixed(1)} | ${(x - y).toFixed(1)} |`);
  }
  const tb = bot.reduce((n, a) => n + a.busy, 0) / botReplies;
  const tf = bare.reduce((n, a) => n + a.busy, 0) / bareReplies;
  console.log(`| **total busy** | ${tb.toFixed(1)} | ${tf.toFixed(1)} | ${(tb - tf).toFixed(1)} |`);
}

table("group", (a) => a.groups, 40);
if (process.argv.includes("--files")) table("file", (a) => a.files, 40);
if (process.argv.includes("--functions")) table("function", (a) => a.functions, 60);
