// The poll loop alone: one long poll after another against a canned server in its own process; CPU per poll of a bare undici loop, the client, the event queue.
//
// Usage: node --import tsx bench/poll-loop.ts bare|client|queue [polls] [root]
//   bare: undici's Pool, `request` and `body.json()`, as `bare-echo.ts` polls;
//   client: `client.events.get` with the streamed `events` the queue asks for;
//   queue: the EventQueue itself (watchdog, acknowledging, hand-over) with a sink that takes at once.
//   root: another checkout (its `src/`) to measure instead, for an A/B of a change; alternate,
//   and run each more than once. The server answers every poll at once with one message event,
//   so each poll is what a bot pays per poll when one command comes at a time (at 200 commands/s
//   a bot makes about two polls per reply): no sandbox and no load generator in the measured
//   process. Prints this process's CPU µs per poll over `polls` after 5,000 of warm-up.
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Pool } from "undici";

const [mode = "queue", pollsArg, rootArg] = process.argv.slice(2);
if (mode === "--server") serve();
else await measure();

/** The canned server: every GET /events gets the next event, a message event as the sandbox sends it. */
function serve(): void {
  void import("node:http").then(({ createServer }) => {
    let messageId = 1_000;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      let body: object = { result: "success", msg: "" };
      if (url.pathname === "/api/v1/register")
        body = { ...body, queue_id: "q1", last_event_id: -1, zulip_feature_level: 400 };
      else if (url.pathname === "/api/v1/events") {
        const id = Number(url.searchParams.get("last_event_id")) + 1;
        body = { ...body, queue_id: "q1", events: [messageEvent(id, ++messageId)] };
      }
      const text = JSON.stringify(body);
      req.resume();
      req.on("end", () => {
        res.writeHead(200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
        });
        res.end(text);
      });
    });
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
    });
  });
}

function messageEvent(id: number, messageId: number): object {
  return {
    type: "message",
    message: {
      id: messageId,
      sender_id: 9,
      sender_email: "loader3@sandbox.test",
      sender_full_name: "Loader 3",
      sender_realm_str: "sandbox",
      avatar_url: null,
      client: "node",
      content: `!echo ${messageId}`,
      content_type: "text/x-markdown",
      timestamp: 1_796_280_523,
      recipient_id: 1,
      is_me_message: false,
      reactions: [],
      submessages: [],
      topic_links: [],
      type: "stream",
      stream_id: 1,
      display_recipient: "general",
      subject: "topic 3",
    },
    flags: [],
    id,
  };
}

async function measure(): Promise<void> {
  if (mode !== "bare" && mode !== "client" && mode !== "queue")
    throw new Error("usage: poll-loop.ts bare|client|queue [polls] [root]");
  const polls = Number(pollsArg ?? 20_000);
  const root = pathToFileURL(`${resolve(rootArg ?? new URL("..", import.meta.url).pathname)}/`);
  const load = (path: string) => import(new URL(`src/${path}`, root).href);
  const server = spawn(process.execPath, [...process.execArgv, process.argv[1]!, "--server"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((done) =>
    server.stdout!.once("data", (d: Buffer) => done(Number(String(d).trim()))),
  );
  const site = `http://127.0.0.1:${port}`;
  let poll: () => Promise<unknown>;
  let stop = async (): Promise<void> => undefined;
  if (mode === "bare") {
    const pool = new Pool(site, { connections: 16 });
    const headers = { authorization: `Basic ${Buffer.from("bot@x:key").toString("base64")}` };
    let last = -1;
    poll = async () => {
      const res = await pool.request({
        method: "GET",
        path: `/api/v1/events?queue_id=q1&last_event_id=${last}`,
        headers,
      });
      const { events } = (await res.body.json()) as { events: { id: number }[] };
      for (const event of events) last = Math.max(last, event.id);
    };
    stop = () => pool.close();
  } else {
    const { createClient } = await load("client/client.js");
    const client = createClient({ site, email: "bot@x", apiKey: "key", pacing: false });
    if (mode === "client") {
      let last = -1;
      const take = (items: { id: number }[]) => {
        for (const event of items) last = Math.max(last, event.id);
      };
      poll = () =>
        client.events.get(
          { queue_id: "q1", last_event_id: last },
          { retry: false, stream: { field: "events", take } },
        );
    } else {
      const { EventQueue } = await load("inbound/event-queue.js");
      const queue = new EventQueue({ client, register: { event_types: ["message"] } });
      // One poll measured = one batch reaching the sink (the queue polls on by itself).
      let batches = 0;
      let want = 0;
      let reached: (() => void) | undefined;
      await queue.start(() => {
        batches++;
        if (batches >= want && reached) {
          const done = reached;
          reached = undefined;
          done();
        }
      });
      poll = () =>
        new Promise<void>((done) => {
          want = batches + 1;
          reached = done;
        });
      stop = () => queue.halt();
    }
  }
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) await poll();
  };
  await run(5_000);
  const before = process.cpuUsage();
  await run(polls);
  const used = process.cpuUsage(before);
  await stop();
  server.kill();
  console.log(
    `${mode}: ${((used.user + used.system) / polls).toFixed(1)} µs CPU per poll (${root.pathname})`,
  );
  process.exit(0);
}
