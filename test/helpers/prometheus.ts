// Test helper: a strict parser of the Prometheus text exposition format (0.0.4) that throws on any flaw.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help: string | undefined;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const TYPES = ["counter", "gauge", "histogram", "summary", "untyped"];

function parseValue(text: string, where: string): number {
  if (text === "NaN") return NaN;
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text))
    throw new Error(`${where}: bad value "${text}"`);
  return Number(text);
}

/** The family a sample belongs to: histogram samples carry a suffix. */
function familyOf(sample: string, families: Map<string, Family>): Family | undefined {
  for (const suffix of ["_bucket", "_sum", "_count", ""]) {
    if (!sample.endsWith(suffix)) continue;
    const family = families.get(sample.slice(0, sample.length - suffix.length));
    if (family && (suffix === "" || ["histogram", "summary"].includes(family.type))) return family;
  }
  return undefined;
}

function parseLabels(text: string, where: string): [Record<string, string>, string] {
  const labels: Record<string, string> = {};
  let rest = text.slice(1);
  while (!rest.startsWith("}")) {
    const name = LABEL.exec(rest)?.[0];
    if (!name) throw new Error(`${where}: bad label name at "${rest}"`);
    if (name in labels) throw new Error(`${where}: label ${name} twice`);
    rest = rest.slice(name.length);
    if (!rest.startsWith('="')) throw new Error(`${where}: expected =" after ${name}`);
    rest = rest.slice(2);
    let value = "";
    for (;;) {
      const c = rest[0];
      if (c === undefined) throw new Error(`${where}: unterminated label value`);
      rest = rest.slice(1);
      if (c === '"') break;
      if (c === "\\") {
        const e = rest[0];
        rest = rest.slice(1);
        if (e === "\\") value += "\\";
        else if (e === '"') value += '"';
        else if (e === "n") value += "\n";
        else throw new Error(`${where}: bad escape \\${e}`);
      } else if (c === "\n") throw new Error(`${where}: raw newline in label value`);
      else value += c;
    }
    labels[name] = value;
    if (rest.startsWith(",")) rest = rest.slice(1);
    else if (!rest.startsWith("}")) throw new Error(`${where}: expected , or } at "${rest}"`);
  }
  return [labels, rest.slice(1)];
}

/** Parses exposition text, checking grouping, TYPE before samples, duplicates and histograms. */
export function parsePrometheus(text: string): Map<string, Family> {
  if (!text.endsWith("\n")) throw new Error("exposition must end with a newline");
  const families = new Map<string, Family>();
  const seenSeries = new Set<string>();
  const closed = new Set<string>();
  let current: Family | undefined;
  text
    .slice(0, -1)
    .split("\n")
    .forEach((line, i) => {
      const where = `line ${i + 1}`;
      if (line.trim() === "") return;
      const meta = /^# (HELP|TYPE) ([^ ]+) ?(.*)$/.exec(line);
      if (meta) {
        const [, kind, name, rest] = meta as unknown as [string, string, string, string];
        if (!NAME.test(name) || NAME.exec(name)![0] !== name)
          throw new Error(`${where}: bad metric name ${name}`);
        if (closed.has(name)) throw new Error(`${where}: ${name} appears in two groups`);
        let family = families.get(name);
        if (!family) {
          if (current && current.name !== name) closed.add(current.name);
          family = { name, type: "untyped", help: undefined, samples: [] };
          families.set(name, family);
        }
        if (family.samples.length > 0)
          throw new Error(`${where}: ${kind} after samples of ${name}`);
        if (kind === "TYPE") {
          if (!TYPES.includes(rest)) throw new Error(`${where}: unknown type ${rest}`);
          family.type = rest;
        } else {
          if (family.help !== undefined) throw new Error(`${where}: HELP twice for ${name}`);
          if (/\\[^\\n]/.test(rest.replace(/\\\\/g, "")))
            throw new Error(`${where}: bad escape in HELP`);
          family.help = rest;
        }
        current = family;
        return;
      }
      if (line.startsWith("#")) return;
      const name = NAME.exec(line)?.[0];
      if (!name) throw new Error(`${where}: bad sample "${line}"`);
      let rest = line.slice(name.length);
      let labels: Record<string, string> = {};
      if (rest.startsWith("{")) [labels, rest] = parseLabels(rest, where);
      const parts = rest.trim().split(/ +/);
      if (!rest.startsWith(" ") || parts.length < 1 || parts.length > 2)
        throw new Error(`${where}: expected " value [timestamp]" in "${line}"`);
      const value = parseValue(parts[0]!, where);
      const family = familyOf(name, families);
      if (!family) throw new Error(`${where}: sample ${name} has no TYPE line before it`);
      if (family !== current) throw new Error(`${where}: ${name} is not grouped with its family`);
      const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
      if (seenSeries.has(key)) throw new Error(`${where}: duplicate series ${key}`);
      seenSeries.add(key);
      family.samples.push({ name, labels, value });
    });
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return families;
}

function checkHistogram(family: Family): void {
  const groups = new Map<string, Sample[]>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    if (s.name.endsWith("_bucket") && le === undefined)
      throw new Error(`${family.name}: bucket without le`);
    const key = JSON.stringify(Object.entries(rest).sort());
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  for (const [key, samples] of groups) {
    const buckets = samples.filter((s) => s.name === `${family.name}_bucket`);
    const count = samples.find((s) => s.name === `${family.name}_count`);
    const sum = samples.find((s) => s.name === `${family.name}_sum`);
    if (!count || !sum) throw new Error(`${family.name}${key}: missing _sum or _count`);
    let last = -Infinity;
    let lastCount = 0;
    for (const b of buckets) {
      const le = parseValue(b.labels.le!, family.name);
      if (le <= last) throw new Error(`${family.name}${key}: buckets not increasing`);
      if (b.value < lastCount) throw new Error(`${family.name}${key}: buckets not cumulative`);
      last = le;
      lastCount = b.value;
    }
    if (last !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`);
    if (lastCount !== count.value) throw new Error(`${family.name}${key}: +Inf bucket != _count`);
  }
}
