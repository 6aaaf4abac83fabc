// Benchmark: command-line argument parsing (`a b --note w` into typed args) vs a lean split-and-convert parser.
import { resolveInvocation, compileSpec } from "../src/commands/command.js";
import { arg } from "../src/commands/types.js";
import type { ArgEnv } from "../src/commands/types.js";
import type { Directory } from "../src/context/directory.js";
import { main, median, progress } from "./lib.js";

const CALLS = 200_000;
const WARMUP = 50_000;
/**
 * Rounds, the two parsers alternating a round each; CPU time (not wall time), medians. Three
 * rounds of each, one parser's after the other's and timed by the wall clock, gave 0.54-3.47x
 * for the same code on this loaded machine.
 */
const ROUNDS = 7;

/** The floor: what a parser with no quoting, no chat markup and no messages costs. */
function leanParse(text: string): { args: { a: number; b: number }; options: { note?: string } } {
  const words = text.split(" ");
  const positionals: string[] = [];
  const options: { note?: string } = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--note") options.note = words[++i];
    else positionals.push(w);
  }
  const a = Number(positionals[0]);
  const b = Number(positionals[1]);
  if (Number.isNaN(a) || Number.isNaN(b) || positionals.length !== 2) throw new Error("usage");
  return { args: { a, b }, options };
}

void main(async () => {
  const compiled = compileSpec("add", {
    args: { a: arg.number(), b: arg.number() },
    options: { note: arg.string().optional() },
  });
  const env: ArgEnv = {
    directory: {} as Directory,
    senderId: 1,
    now: 0,
    timeZone: () => Promise.resolve("UTC"),
  };
  const texts = Array.from({ length: 97 }, (_, i) => `${i} ${i % 13} --note run${i % 7}`);
  let sink = 0;

  /** CPU ns per call of `parse` over `count` of the texts. */
  async function once(parse: (text: string) => unknown, count: number): Promise<number> {
    const started = process.cpuUsage();
    for (let i = 0; i < count; i++) {
      let result = parse(texts[i % texts.length]!);
      if (result instanceof Promise) result = await result;
      sink += (result as { args: { a: number } }).args.a;
    }
    const { user, system } = process.cpuUsage(started);
    return ((user + system) * 1e3) / count;
  }
  const parseOurs = (text: string) => resolveInvocation(compiled, text, env);
  await once(parseOurs, WARMUP);
  await once(leanParse, WARMUP);
  progress(`args: ${ROUNDS} × ${CALLS} parses of \`<a> <b> --note <word>\` each, alternating`);
  const oursRounds: number[] = [];
  const leanRounds: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const first = r % 2 === 0;
    if (!first) leanRounds.push(await once(leanParse, CALLS));
    oursRounds.push(await once(parseOurs, CALLS));
    if (first) leanRounds.push(await once(leanParse, CALLS));
    ratios.push(oursRounds.at(-1)! / leanRounds.at(-1)!);
  }
  const ours = median(oursRounds);
  const lean = median(leanRounds);
  const ratio = median(ratios);
  if (sink === 0) throw new Error("nothing parsed");
  return {
    name: "args",
    title: "Arguments: parsing a command line into typed arguments",
    method: `\`resolveInvocation\` on \`<a> <b> --note <word>\` (two \`arg.number()\`, one \`--note\` option) ${CALLS.toLocaleString("en")} times a round, ${ROUNDS} rounds alternating with the baseline, CPU time (user + system), medians: tokenizing with quotes and chat markup, binding to the spec, typed conversion. Baseline: a lean parser that splits on spaces, picks out \`--note\` and converts with \`Number\` (no quoting, no markup, no messages).`,
    rows: [
      {
        metric: "time per parse",
        value: ours,
        baseline: lean,
        unit: "ns",
        better: "lower",
        baselineIs: "a lean split-and-convert parser",
      },
    ],
    checks: [
      {
        what: `argument parsing costs at most 3× the lean parser (median of the rounds' ratios ${ratio.toFixed(2)}×, rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×)`,
        ok: ratio <= 3,
      },
    ],
  };
});
