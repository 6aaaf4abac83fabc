// Benchmark: RSS and heap after start and after 100,000 handled events that each send a reply; growth must be flat.
import { arg, definePlugin } from "../src/index.js";
import { main, memory, messageEvent, progress, startInMemoryBot, until } from "./lib.js";

const EVENTS = 100_000;
const CHECKPOINTS = 4;
const BATCH = 200;
const USERS = 50;
const TOPICS = 1_000;
const REPLY_EVERY = 10;
/** Heap growth between the first checkpoint and the last that still counts as flat, in MiB. */
const FLAT_MIB = 8;

void main(async () => {
  const sink: string[] = [];
  let handled = 0;
  const plugin = definePlugin({
    name: "bench",
    setup(bot) {
      bot.command(
        "echo",
        { description: "Says the text back", args: { n: arg.number(), text: arg.rest() } },
        async (ctx) => {
          const { n, text } = ctx.command.args;
          handled++;
          // One event in REPLY_EVERY goes out through the client; the rest to an in-memory list.
          if (n % REPLY_EVERY === 0) await ctx.reply(`${n}: ${text}`);
          else if (sink.push(text) > 1_000) sink.length = 0;
        },
      );
    },
  });
  const { events, sent, close } = await startInMemoryBot(plugin);
  const atStart = await memory();
  progress(
    `memory: after start rss ${atStart.rss.toFixed(1)} MiB, heap ${atStart.heap.toFixed(1)} MiB`,
  );

  const samples: { events: number; rss: number; heap: number }[] = [];
  let id = 1;
  for (let c = 1; c <= CHECKPOINTS; c++) {
    const upTo = (EVENTS / CHECKPOINTS) * c;
    while (id <= upTo) {
      const batch = [];
      for (let k = 0; k < BATCH && id <= upTo; k++, id++) {
        batch.push(
          messageEvent(id, 1 + (id % USERS), `topic ${id % TOPICS}`, `!echo ${id} some words here`),
        );
      }
      await events.push(batch);
    }
    await until(
      () => handled >= upTo && sent() >= upTo / REPLY_EVERY,
      60_000,
      `${upTo} handled events`,
    );
    const m = await memory();
    samples.push({ events: upTo, ...m });
    progress(
      `memory: after ${upTo} events rss ${m.rss.toFixed(1)} MiB, heap ${m.heap.toFixed(1)} MiB`,
    );
  }
  await close();

  const first = samples[0]!;
  const last = samples.at(-1)!;
  const growth = last.heap - first.heap;
  return {
    name: "memory",
    title: "Memory: after start and after 100,000 handled events",
    method: `${EVENTS.toLocaleString("en")} \`!echo <n> <text>\` events from ${USERS} users in ${TOPICS.toLocaleString("en")} topics through the whole pipeline, each answered with \`ctx.reply\` through the typed client to an in-memory undici MockAgent. Memory is read after three forced collections (\`--expose-gc\`). Baseline: the same process right after \`bot.start()\`. Flat means the heap grows less than ${FLAT_MIB} MiB between ${first.events.toLocaleString("en")} and ${last.events.toLocaleString("en")} events. Heap after each quarter: ${samples.map((s) => `${s.heap.toFixed(1)}`).join(", ")} MiB.`,
    rows: [
      {
        metric: "RSS",
        value: last.rss,
        baseline: atStart.rss,
        unit: "MiB",
        better: "lower",
        baselineIs: "after start",
      },
      {
        metric: "heap used",
        value: last.heap,
        baseline: atStart.heap,
        unit: "MiB",
        better: "lower",
        baselineIs: "after start",
      },
      {
        metric: `heap growth ${first.events / 1000}k → ${last.events / 1000}k events`,
        value: growth,
        baseline: null,
        unit: "MiB",
        better: "lower",
      },
    ],
    checks: [
      {
        what: `every one of ${EVENTS} events was handled, ${EVENTS / REPLY_EVERY} with a reply`,
        ok: handled === EVENTS && sent() === EVENTS / REPLY_EVERY,
      },
      {
        what: `heap growth is flat (${growth.toFixed(2)} MiB < ${FLAT_MIB} MiB from ${first.events} to ${last.events} events)`,
        ok: growth < FLAT_MIB,
      },
    ],
  };
});
