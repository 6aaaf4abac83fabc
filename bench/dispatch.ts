// Benchmark: message events through the whole pipeline (gate, middleware, router, arguments, handler) vs the bare handler.
import { arg, definePlugin } from "../src/index.js";
import { main, messageEvent, progress, startInMemoryBot, until } from "./lib.js";

const EVENTS = 40_000;
const WARMUP = 5_000;
const BATCH = 100;
const USERS = 20;
const TOPICS = 10;

/** The handler under test: reads typed arguments and writes its answer to an in-memory sink. */
function handler(sink: string[], a: number, b: number, note: string | undefined): void {
  sink.push(`${a} + ${b} = ${a + b}${note ? ` (${note})` : ""}`);
  if (sink.length > 1_000) sink.length = 0;
}

void main(async () => {
  const sink: string[] = [];
  let handled = 0;
  let passedMiddleware = 0;
  const plugin = definePlugin({
    name: "bench",
    setup(bot) {
      bot.use(async (_ctx, next) => {
        passedMiddleware++;
        await next();
      });
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
  const { events, close } = await startInMemoryBot(plugin);

  let nextId = 1;
  const event = (i: number) =>
    messageEvent(
      nextId++,
      1 + (i % USERS),
      `topic ${i % TOPICS}`,
      `!add ${i % 97} ${i % 13} --note run${i % 7}`,
    );
  async function pushAll(count: number): Promise<number> {
    const target = handled + count;
    const started = performance.now();
    for (let i = 0; i < count; i += BATCH) {
      await events.push(Array.from({ length: Math.min(BATCH, count - i) }, (_, k) => event(i + k)));
    }
    await until(() => handled >= target, 60_000, `${count} handled events`);
    return performance.now() - started;
  }

  progress(`dispatch: warm-up, ${WARMUP} events`);
  await pushAll(WARMUP);
  progress(`dispatch: ${EVENTS} events from ${USERS} users in ${TOPICS} topics`);
  const pipelineMs = await pushAll(EVENTS);
  await close();
  if (passedMiddleware < WARMUP + EVENTS) throw new Error("the middleware did not see every event");

  // Baseline: the same handler, called directly with the same arguments, in a loop.
  progress("dispatch: baseline, the handler alone");
  const args = Array.from({ length: EVENTS }, (_, i) => [i % 97, i % 13, `run${i % 7}`] as const);
  for (const [a, b, note] of args.slice(0, WARMUP)) handler(sink, a, b, note);
  const started = performance.now();
  for (const [a, b, note] of args) handler(sink, a, b, note);
  const baselineMs = performance.now() - started;

  return {
    name: "dispatch",
    title: "Dispatch: events through the whole pipeline",
    method: `${EVENTS.toLocaleString("en")} synthetic \`!add <a> <b> --note <word>\` message events from ${USERS} users in ${TOPICS} topics, pushed in batches of ${BATCH} through \`createBot({ events })\` (a push source) with the client on an in-memory undici MockAgent: ignore-self, gate, one plugin middleware, router, typed argument parsing, and a handler that writes to an in-memory list. Baseline: the same handler called directly in a loop with the same arguments.`,
    rows: [
      {
        metric: "throughput",
        value: EVENTS / (pipelineMs / 1000),
        baseline: EVENTS / (baselineMs / 1000),
        unit: "events/s",
        better: "higher",
        baselineIs: "the handler alone",
      },
      {
        metric: "time per event",
        value: (pipelineMs * 1000) / EVENTS,
        baseline: (baselineMs * 1000) / EVENTS,
        unit: "µs",
        better: "lower",
        baselineIs: "the handler alone",
      },
    ],
    checks: [
      {
        what: `every one of ${EVENTS + WARMUP} events reached the handler`,
        ok: handled === EVENTS + WARMUP,
      },
    ],
  };
});
