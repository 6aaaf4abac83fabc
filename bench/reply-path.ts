// The reply path alone, in one process: reply guard, file journal, postTo, outbox, client and transport, over a dispatcher that answers at once.
//
// Usage: node --import tsx bench/reply-path.ts [replies] [root]
//   root: another checkout (its `src/`) to measure instead, for an A/B of a change; run both
//   more than once, alternating. Prints the process's CPU µs per reply (user + system) over the
//   second half of the replies (the first half warms up). No network and no event loop of a
//   server: what the layers of a reply cost, steadier than `reply.ts` on a loaded machine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Dispatcher } from "undici";

const REPLIES = Number(process.argv[2] ?? 100_000);
const ROOT = pathToFileURL(
  `${resolve(process.argv[3] ?? new URL("..", import.meta.url).pathname)}/`,
);
/** Replies in flight, as at saturation in `reply.ts`. */
const IN_FLIGHT = 64;

const load = (path: string) => import(new URL(`src/${path}`, ROOT).href);
const { createClient } = await load("client/client.js");
const { FileDeliveryStore } = await load("state/delivery/file.js");
const { ReplyGuard } = await load("outbound/reply-guard.js");
const { LoopGuard } = await load("outbound/loop-guard.js");
const { createOutbox } = await load("outbound/outbox.js");
const actions = await load("context/actions.js");
/** What the context's `#deliver` hands the guard as the reply's parameters (a spread before `withContent`). */
const withContent: (p: object, content: string) => object =
  actions.withContent ?? ((p: object, content: string) => ({ ...p, content }));

let nextId = 1_000_000;
/** Answers each request in the next turn, as a server would, with a new message ID. */
const answering = {
  dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
    const c = { abort() {}, pause() {}, resume() {} } as unknown as Dispatcher.DispatchController;
    setImmediate(() => {
      handler.onRequestStart?.(c, {});
      handler.onResponseStart?.(c, 200, { "x-ratelimit-remaining": "100" }, "OK");
      handler.onResponseData?.(c, Buffer.from(`{"result":"success","msg":"","id":${nextId++}}`));
      handler.onResponseEnd?.(c, {});
    });
    return true;
  },
  close: async () => undefined,
} as unknown as Dispatcher;

const log = { info() {}, warn() {}, debug() {}, error() {}, child: () => log };
const dir = mkdtempSync(join(tmpdir(), "topicbot-bench-reply-path-"));
const store = await FileDeliveryStore.open({ path: join(dir, "bot.json.delivery.jsonl") });
const person = { userId: 7, isBot: false };
const server = () => ({ featureLevel: 400, maxMessageLength: 10_000 });
const api = createClient({
  site: "http://chat.test",
  email: "bot@chat.test",
  apiKey: "KEY",
  dispatcher: answering,
});
let floor = 0;
const outbox = createOutbox({ api, me: () => 1, floor: () => floor, log });
const guard = new ReplyGuard({
  store,
  outbox,
  directory: { known: () => person, user: () => Promise.resolve(person) },
  loopGuard: new LoopGuard({}),
  server,
  floor: () => floor,
  now: Date.now,
  log,
  onStorageError: (error: unknown) => {
    throw error;
  },
});
const env = { api, me: { userId: 1 }, server, sendMessage: outbox.send };

/** One `ctx.reply` as the context makes it: parameters, the guard, postTo through the outbox. */
function reply(id: number): Promise<unknown> {
  floor = id;
  const ctx = { message: { id, sender_id: 7 }, plugin: "echo" };
  const params = actions.replyParams(
    { type: "channel", streamId: 5, topic: `topic ${id % 10}` },
    { userId: 1 },
    400,
  );
  const content = `echo ${id}`;
  return guard.guard(ctx, 0, {
    kind: "reply",
    willEdit: false,
    where: () => `5:topic ${id % 10}`,
    post: () => actions.postTo(env, params, content),
    params: () => withContent(params, content),
  });
}

let id = 1;
async function run(count: number): Promise<void> {
  for (let done = 0; done < count; done += IN_FLIGHT)
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, count - done) }, () => reply(id++)));
}

await run(REPLIES / 2);
const before = process.cpuUsage();
await run(REPLIES / 2);
const used = process.cpuUsage(before);
await store.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  `${((used.user + used.system) / (REPLIES / 2)).toFixed(2)} µs CPU per reply (${ROOT.pathname})`,
);
