// Benchmark: `!add a b --note w` events through topicbot's whole pipeline, beside grammY's handleUpdate and a lean floor.
import { GCProfiler } from "node:v8";
import { Bot as GrammyBot, type Context as GrammyContext } from "grammy";
import type { Update } from "grammy/types";
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { hostname } from "node:os";
import { transform } from "esbuild";
import type * as Floor from "./floor.js";
import type { AnyEvent } from "../src/api/events.js";
import {
  builtTopicbot,
  main,
  median,
  messageEvent,
  progress,
  startInMemoryBot,
  until,
  type Row,
} from "./lib.js";

declare module "../src/model/context-state.js" {
  /** What the bench's middleware marks on each message. */
  interface ContextState {
    seen?: boolean;
  }
}

const EVENTS = 40_000;
/** The long run (issue 37: the lead must hold at 400k events too, where GC of a larger heap shows). */
const LARGE = 400_000;
const WARMUP = 5_000;
const ROUNDS = 3;
const BATCH = 100;
const USERS = 20;
const TOPICS = 10;
/** Issue 37 goal 3: at most 0.7× grammY's cost per event; issue 17: within 1.5× of the floor. */
const GRAMMY_FACTOR = 0.7;
const FLOOR_FACTOR = 1.5;

/** The handler under test: reads typed arguments and writes its answer to an in-memory sink. */
function handler(sink: string[], a: number, b: number, note: string | undefined): void {
  sink.push(`${a} + ${b} = ${a + b}${note ? ` (${note})` : ""}`);
  if (sink.length > 1_000) sink.length = 0;
}

const content = (i: number) => `!add ${i % 97} ${i % 13} --note run${i % 7}`;

/**
 * The one timing loop every contender runs: `count` items made by `make(n)`, pushed `BATCH` at a
 * time. Each contender makes its `make` and `push` once.
 */
async function inBatches<T>(
  count: number,
  make: (n: number) => T,
  push: (batch: T[]) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < count; i += BATCH) {
    const batch: T[] = [];
    for (let n = i; n < Math.min(i + BATCH, count); n++) batch.push(make(n));
    await push(batch);
  }
}

/** One measured run: time, GC time and bytes allocated (from the GC's own accounting). */
interface Figures {
  usPerEvent: number;
  /** Process CPU time (user + system): what the event cost, whatever else ran on the machine. */
  cpuUsPerEvent: number;
  gcMsPer40k: number;
  bytesPerEvent: number;
}

async function measure(count: number, run: () => Promise<void>): Promise<Figures> {
  const profiler = new GCProfiler();
  const heapBefore = process.memoryUsage().heapUsed;
  profiler.start();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await run();
  const cpu = process.cpuUsage(cpuBefore);
  const ms = performance.now() - started;
  const heapAfter = process.memoryUsage().heapUsed;
  const { statistics } = profiler.stop();
  let freed = 0;
  let gcMicros = 0;
  for (const gc of statistics) {
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
    gcMicros += gc.cost;
  }
  return {
    usPerEvent: (ms * 1000) / count,
    cpuUsPerEvent: (cpu.user + cpu.system) / count,
    gcMsPer40k: (gcMicros / 1000) * (40_000 / count),
    bytesPerEvent: Math.max(0, heapAfter - heapBefore + freed) / count,
  };
}

/** Medians of each figure over rounds. */
function medians(rounds: Figures[]): Figures {
  return {
    usPerEvent: median(rounds.map((r) => r.usPerEvent)),
    cpuUsPerEvent: median(rounds.map((r) => r.cpuUsPerEvent)),
    gcMsPer40k: median(rounds.map((r) => r.gcMsPer40k)),
    bytesPerEvent: median(rounds.map((r) => r.bytesPerEvent)),
  };
}

/** The floor compiled as the build compiles topicbot (plain JavaScript, no tsx wrappers). */
async function builtFloor(): Promise<typeof Floor> {
  const source = await readFile(new URL("./floor.ts", import.meta.url), "utf8");
  const { code } = await transform(source, { loader: "ts", format: "esm", target: "es2022" });
  return (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as typeof Floor;
}

/** topicbot: a started bot fed by a push source, three commands and one middleware. */
async function topicbot(sink: string[]) {
  const { arg, definePlugin, createBot, createClient } = await builtTopicbot("bench/dispatch.ts");
  let handled = 0;
  const plugin = definePlugin({
    name: "bench",
    setup(bot) {
      bot.use(async (ctx, next) => {
        ctx.state.seen = true;
        await next();
      });
      bot.command("ping", {}, (ctx) => ctx.reply("pong"));
      bot.command("echo", { args: { text: arg.rest() } }, (ctx) =>
        ctx.reply(ctx.command.args.text),
      );
      bot.command(
        "add",
        {
          description: "Adds two numbers",
          args: { a: arg.number(), b: arg.number() },
          options: { note: arg.string().optional() },
        },
        (ctx) => {
          handler(sink, ctx.command.args.a, ctx.command.args.b, ctx.command.options.note);
          handled++;
        },
      );
    },
  });
  const { events, close } = await startInMemoryBot(plugin, { createBot, createClient });
  let nextId = 1;
  const make = (n: number) =>
    messageEvent(nextId++, 1 + (n % USERS), `topic ${n % TOPICS}`, content(n));
  const push = (batch: AnyEvent[]) => events.push(batch);
  return {
    handled: () => handled,
    close,
    async run(count: number) {
      const target = handled + count;
      await inBatches(count, make, push);
      await until(() => handled >= target, 120_000, `${count} handled events`);
    },
  };
}

/** grammY: `bot.handleUpdate` with three commands and one middleware; its API is never called. */
function grammy(sink: string[]) {
  let handled = 0;
  const bot = new GrammyBot<GrammyContext & { seen?: boolean }>("0:bench", {
    botInfo: {
      id: 1000,
      is_bot: true,
      first_name: "Bench Bot",
      username: "bench_bot",
      can_join_groups: true,
      can_read_all_group_messages: true,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
    } as ConstructorParameters<typeof GrammyBot>[1] extends infer O
      ? O extends { botInfo?: infer B }
        ? B
        : never
      : never,
    client: { fetch: () => Promise.reject(new Error("no network in the benchmark")) },
  });
  bot.use(async (ctx, next) => {
    ctx.seen = true;
    await next();
  });
  bot.command("ping", (ctx) => ctx.reply("pong"));
  bot.command("echo", (ctx) => ctx.reply(ctx.match));
  bot.command("add", (ctx) => {
    // grammY has no typed arguments: the same parse, by hand.
    const words = ctx.match.split(" ");
    const a = Number(words[0]);
    const b = Number(words[1]);
    if (Number.isNaN(a) || Number.isNaN(b)) return;
    const at = words.indexOf("--note");
    handler(sink, a, b, at === -1 ? undefined : words[at + 1]);
    handled++;
  });
  let nextId = 1;
  const update = (n: number): Update => {
    const text = `/${content(n).slice(1)}`;
    return {
      update_id: nextId,
      message: {
        message_id: nextId++,
        date: 1_700_000_000,
        chat: { id: -1000 - (n % TOPICS), type: "supergroup", title: `topic ${n % TOPICS}` },
        from: { id: 1 + (n % USERS), is_bot: false, first_name: `User ${n % USERS}` },
        text,
        entities: [{ type: "bot_command", offset: 0, length: 4 }],
      },
    };
  };
  const make = (n: number) => bot.handleUpdate(update(n));
  const push = async (batch: Promise<void>[]) => void (await Promise.all(batch));
  return {
    handled: () => handled,
    run: (count: number) => inBatches(count, make, push),
  };
}

/** The floor: bench/floor.ts on the same events as topicbot. */
async function floor(sink: string[]) {
  let handled = 0;
  const { createFloor } = await builtFloor();
  const pipeline = createFloor(
    async (ctx, next) => {
      (ctx as { seen?: boolean }).seen = true;
      await next();
    },
    {
      ping: () => undefined,
      echo: () => undefined,
      add: (ctx) => {
        handler(sink, ctx.args!.a, ctx.args!.b, ctx.args!.note);
        handled++;
      },
    },
  );
  let nextId = 1;
  const make = (n: number) =>
    messageEvent(nextId++, 1 + (n % USERS), `topic ${n % TOPICS}`, content(n));
  const push = (batch: AnyEvent[]) => pipeline.push(batch);
  return {
    handled: () => handled,
    run: (count: number) => inBatches(count, make, push),
  };
}

const fmt = (n: number) => n.toFixed(2);

/**
 * One contender alone in this process, as `main` runs each:
 * `node --import tsx bench/dispatch.ts --only topicbot|grammY|floor [events] [warm-up]` warms it
 * up, runs `events` more, prints its figures for those (a JSON line on stdout, a sentence on
 * stderr) and exits. Under `valgrind --tool=callgrind --dump-before=uv_os_gethostname`, the
 * highest-numbered dump holds those events alone (start-up and warm-up left out): see
 * `bench/README.md`.
 */
async function only(args: string[]): Promise<never> {
  const [name = "", events = EVENTS, warmup = WARMUP] = args.map((a, i) =>
    i === 0 ? a : Number(a),
  ) as [string?, number?, number?];
  const sink: string[] = [];
  if (!(CONTENDERS as readonly string[]).includes(name))
    throw new Error(`--only takes ${CONTENDERS.join(", ")}, not ${name}`);
  const ours = name === "topicbot" ? await topicbot(sink) : undefined;
  const runner = ours ?? (name === "grammY" ? grammy(sink) : await floor(sink));
  await runner.run(warmup);
  // Markers for callgrind (`--dump-before=uv_os_gethostname`): the dump the second one makes holds
  // the measured events alone, without start-up and warm-up.
  hostname();
  const figures = await measure(events, () => runner.run(events));
  hostname();
  await ours?.close();
  const expected = warmup + events;
  if (runner.handled() !== expected)
    throw new Error(`${name} handled ${runner.handled()} of ${expected} events`);
  process.stderr.write(
    `  ${name}: ${expected} events handled; the last ${events}: ${fmt(figures.usPerEvent)} µs/event, ` +
      `CPU ${fmt(figures.cpuUsPerEvent)} µs/event, GC ${fmt(figures.gcMsPer40k)} ms per 40,000, ` +
      `${fmt(figures.bytesPerEvent / 1024)} KiB/event\n`,
  );
  process.stdout.write(`${JSON.stringify({ dispatch: figures })}\n`);
  process.exit(0);
}

const CONTENDERS = ["topicbot", "grammY", "floor"] as const;
type Contender = (typeof CONTENDERS)[number];

/** Runs one contender in a fresh process (`--only`) and reads its figures. */
function inOwnProcess(name: Contender, events: number, profile: string[]): Promise<Figures> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...profile, "--import", "tsx", self, "--only", name, String(events), String(WARMUP)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    child.once("exit", (code) => {
      const line = out.split("\n").find((l) => l.startsWith('{"dispatch":'));
      if (code === 0 && line) resolve((JSON.parse(line) as { dispatch: Figures }).dispatch);
      else reject(new Error(`dispatch --only ${name} failed (exit ${code})\n${out}`));
    });
  });
}

void main(async () => {
  const onlyAt = process.argv.indexOf("--only");
  if (onlyAt !== -1) return only(process.argv.slice(onlyAt + 1));
  // Under `--cpu-prof` (`npm run bench -- --profile dispatch`) only topicbot is run, under the same
  // flags, so that the profile shows its hot path alone; the others' figures are then missing.
  const cpuProf = process.execArgv.filter((a) => a.startsWith("--cpu-prof"));
  const timed: readonly Contender[] = cpuProf.length > 0 ? ["topicbot"] : CONTENDERS;
  const figures = {
    small: new Map<Contender, Figures[]>(),
    large: new Map<Contender, Figures[]>(),
  };
  for (const name of timed) {
    figures.small.set(name, []);
    figures.large.set(name, []);
  }
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternating, the first contender rotating, each in a fresh process of its own.
    const order = timed.map((_, i) => timed[(i + round - 1) % timed.length]!);
    for (const [size, events] of [
      ["small", EVENTS],
      ["large", LARGE],
    ] as const) {
      for (const name of order) {
        progress(`dispatch: round ${round}/${ROUNDS}, ${name}, ${events} events (own process)`);
        figures[size].get(name)!.push(await inOwnProcess(name, events, cpuProf));
      }
    }
  }
  const pick = (size: "small" | "large", name: Contender) =>
    figures[size].has(name) ? medians(figures[size].get(name)!) : undefined;
  const us = pick("small", "topicbot")!;
  const gy = pick("small", "grammY") ?? us;
  const fl = pick("small", "floor") ?? us;
  const usL = pick("large", "topicbot")!;
  const gyL = pick("large", "grammY") ?? usL;
  const row = (
    metric: string,
    f: (x: Figures) => number,
    unit: string,
    ours: Figures,
    vs: Figures,
    is: string,
  ): Row => ({ metric, value: f(ours), baseline: f(vs), unit, better: "lower", baselineIs: is });
  const rows: Row[] = [];
  for (const [label, ours, vs, is] of [
    ["", us, gy, "grammY handleUpdate"],
    ["", us, fl, "the lean floor"],
    [` (${LARGE.toLocaleString("en")} events)`, usL, gyL, "grammY handleUpdate"],
  ] as const) {
    rows.push(
      row(`time per event${label}`, (f) => f.usPerEvent, "µs", ours, vs, is),
      row(`CPU time per event${label}`, (f) => f.cpuUsPerEvent, "µs", ours, vs, is),
      row(`GC time per 40,000 events${label}`, (f) => f.gcMsPer40k, "ms", ours, vs, is),
      row(`allocated per event${label}`, (f) => f.bytesPerEvent / 1024, "KiB", ours, vs, is),
    );
  }
  const vsGrammy = us.cpuUsPerEvent / gy.cpuUsPerEvent;
  const vsGrammyL = usL.cpuUsPerEvent / gyL.cpuUsPerEvent;
  const vsFloor = us.cpuUsPerEvent / fl.cpuUsPerEvent;
  return {
    name: "dispatch",
    title: "Dispatch: events through the whole pipeline, beside grammY and a lean floor",
    method: `\`!add <a> <b> --note <word>\` message events from ${USERS} users in ${TOPICS} topics, pushed in batches of ${BATCH}. Each contender runs in a fresh Node process of its own (\`bench/dispatch.ts --only <name>\`), warmed up with ${WARMUP.toLocaleString("en")} events, then timed over ${EVENTS.toLocaleString("en")} events (and, in another fresh process, ${LARGE.toLocaleString("en")}); ${ROUNDS} rounds, the contenders alternating with the first rotating; medians. No \`gc()\` anywhere: each process meets only the collections its own work causes. topicbot: the built package (as users run it), \`createBot({ events })\` with a push source and the client on an in-memory MockAgent; validation, exactly-once claim, lanes, ignore-self, gate, one plugin middleware, router over three commands, typed argument parsing. grammY: \`bot.handleUpdate\` with \`botInfo\` given, three commands and one middleware, the same parse by hand (it has no typed arguments), no network. Floor: \`bench/floor.ts\` (compiled by esbuild as plain JavaScript, like the build), a ~120-line pipeline with the same features (typeof shape check, ring-buffer claim, lanes, compose, typed args). Time per event is wall time; CPU time per event is the process's user + system time over the same events (steadier on a shared machine, and what the goals are judged on). GC time and allocation come from V8's GC profiler. Goal (issue 37): topicbot ≤ ${GRAMMY_FACTOR}× grammY's CPU per event at both sizes.`,
    rows,
    checks: [
      {
        what: `dispatch at most ${GRAMMY_FACTOR}× grammY's CPU per event at ${EVENTS.toLocaleString("en")} events (${fmt(us.cpuUsPerEvent)} vs ${fmt(gy.cpuUsPerEvent)} µs/event, ${fmt(vsGrammy)}×)`,
        ok: vsGrammy <= GRAMMY_FACTOR,
        goal: true,
      },
      {
        what: `dispatch at most ${GRAMMY_FACTOR}× grammY's CPU per event at ${LARGE.toLocaleString("en")} events (${fmt(usL.cpuUsPerEvent)} vs ${fmt(gyL.cpuUsPerEvent)} µs/event, ${fmt(vsGrammyL)}×)`,
        ok: vsGrammyL <= GRAMMY_FACTOR,
        goal: true,
      },
      {
        what: `within ${FLOOR_FACTOR}× the floor's CPU per event (${fmt(us.cpuUsPerEvent)} vs ${fmt(fl.cpuUsPerEvent)} µs/event, ${fmt(vsFloor)}×)`,
        ok: vsFloor <= FLOOR_FACTOR,
        goal: true,
      },
    ],
  };
});
