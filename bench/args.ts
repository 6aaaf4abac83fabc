// Benchmark: command-line argument parsing (`a b --note w` into typed args) vs a lean split-and-convert parser.
import { resolveInvocation, compileSpec } from "../src/commands/command.js";
import { arg } from "../src/commands/types.js";
import type { ArgEnv } from "../src/commands/types.js";
import type { Directory } from "../src/context/directory.js";
import { main, progress } from "./lib.js";

const CALLS = 200_000;
const WARMUP = 50_000;
const ROUNDS = 3;

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

  /** ns per call of `parse` over the texts, the median of ROUNDS. */
  async function measure(parse: (text: string) => unknown): Promise<number> {
    const once = async (count: number) => {
      const started = performance.now();
      for (let i = 0; i < count; i++) {
        let result = parse(texts[i % texts.length]!);
        if (result instanceof Promise) result = await result;
        sink += (result as { args: { a: number } }).args.a;
      }
      return ((performance.now() - started) * 1e6) / count;
    };
    await once(WARMUP);
    const rounds: number[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await once(CALLS));
    return rounds.sort((x, y) => x - y)[1]!;
  }

  progress(`args: ${ROUNDS} × ${CALLS} parses of \`<a> <b> --note <word>\``);
  const ours = await measure((text) => resolveInvocation(compiled, text, env));
  progress("args: the lean parser");
  const lean = await measure(leanParse);
  if (sink === 0) throw new Error("nothing parsed");
  return {
    name: "args",
    title: "Arguments: parsing a command line into typed arguments",
    method: `\`resolveInvocation\` on \`<a> <b> --note <word>\` (two \`arg.number()\`, one \`--note\` option) ${CALLS.toLocaleString("en")} times, median of ${ROUNDS} rounds: tokenizing with quotes and chat markup, binding to the spec, typed conversion. Baseline: a lean parser that splits on spaces, picks out \`--note\` and converts with \`Number\` (no quoting, no markup, no messages).`,
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
    checks: [{ what: "argument parsing costs at most 3× the lean parser", ok: ours <= 3 * lean }],
  };
});
