// Benchmark: requests per second the sandbox serves for POST /messages and GET /events, vs a bare HTTP server.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { startSandbox } from "../src/sandbox/server.js";
import { main, percentile, progress, type Row } from "./lib.js";

const REQUESTS = 4_000;
const CONCURRENCY = 32;

interface Request {
  path: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

/** Sends `count` requests from `CONCURRENCY` concurrent callers; requests/s and latencies. */
async function hammer(
  url: string,
  count: number,
  make: (i: number) => Request,
): Promise<{ rps: number; p99: number }> {
  const pool = new Pool(url, { connections: CONCURRENCY });
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const req = make(next++);
        const start = performance.now();
        const res = await pool.request(req);
        const text = await res.body.text();
        if (res.statusCode !== 200)
          throw new Error(`${req.method} ${req.path}: ${res.statusCode} ${text}`);
        latencies.push(performance.now() - start);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  await pool.close();
  return { rps: count / seconds, p99: percentile(latencies, 99) };
}

void main(async () => {
  const sandbox = await startSandbox({ heartbeatSeconds: 30 });
  const mia = sandbox.user("mia");
  const olivia = sandbox.user("olivia");
  const basic = (u: { email: string; apiKey: string }) =>
    `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;
  // A queue for olivia, so every message is also fanned out to a polling client, as in use.
  const reg = await fetch(`${sandbox.url}/api/v1/register`, {
    method: "POST",
    headers: { authorization: basic(olivia), "content-type": "application/x-www-form-urlencoded" },
    body: "event_types=%5B%22message%22%5D",
  });
  const { queue_id: queueId } = (await reg.json()) as { queue_id: string };

  const post = (i: number): Request => ({
    path: "/api/v1/messages",
    method: "POST",
    headers: { authorization: basic(mia), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      type: "channel",
      to: "general",
      topic: `topic ${i % 10}`,
      content: `message ${i} with **some** markdown`,
    }).toString(),
  });
  const poll = (): Request => ({
    path: `/api/v1/events?queue_id=${encodeURIComponent(queueId)}&dont_block=true`,
    method: "GET",
    headers: { authorization: basic(olivia) },
  });

  progress(`sandbox: ${REQUESTS} POST /messages, ${CONCURRENCY} concurrent`);
  await hammer(sandbox.url, 500, post);
  const posts = await hammer(sandbox.url, REQUESTS, post);
  // Acknowledge what the posts queued, so polls answer a small, realistic batch.
  await fetch(`${sandbox.url}${poll().path}&last_event_id=${REQUESTS + 499}`, {
    headers: poll().headers,
  });
  progress(`sandbox: ${REQUESTS} GET /events (dont_block), ${CONCURRENCY} concurrent`);
  await hammer(sandbox.url, 500, poll);
  const polls = await hammer(sandbox.url, REQUESTS, poll);
  await sandbox.close();

  // Baseline: node's bare HTTP server answering a JSON body of the same size, no routing, no state.
  const body = JSON.stringify({
    result: "success",
    msg: "",
    id: 123456,
    automatic_new_visibility_policy: 2,
  });
  const bare = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  progress("sandbox: baseline, a bare node:http server");
  await hammer(bareUrl, 500, post);
  const barePosts = await hammer(bareUrl, REQUESTS, post);
  const barePolls = await hammer(bareUrl, REQUESTS, poll);
  bare.closeAllConnections();
  await new Promise((resolve) => bare.close(resolve));

  const rows: Row[] = [
    {
      metric: "POST /messages",
      value: posts.rps,
      baseline: barePosts.rps,
      unit: "req/s",
      better: "higher",
    },
    {
      metric: "POST /messages: p99",
      value: posts.p99,
      baseline: barePosts.p99,
      unit: "ms",
      better: "lower",
    },
    {
      metric: "GET /events",
      value: polls.rps,
      baseline: barePolls.rps,
      unit: "req/s",
      better: "higher",
    },
    {
      metric: "GET /events: p99",
      value: polls.p99,
      baseline: barePolls.p99,
      unit: "ms",
      better: "lower",
    },
  ].map((r) => ({ ...r, baselineIs: "bare node:http", better: r.better as Row["better"] }));
  return {
    name: "sandbox",
    title: "Sandbox: requests per second it serves",
    method: `${REQUESTS.toLocaleString("en")} requests each (after 500 to warm up) from an undici pool with ${CONCURRENCY} concurrent callers, in the sandbox's own process. POST /messages: \`mia\` posts to \`general\` (Markdown rendered, stored, fanned out to one registered queue). GET /events: \`dont_block=true\` polls of that queue. Baseline: a bare \`node:http\` server answering a JSON body of the same size to the same requests: the most any Node HTTP server can do here.`,
    rows,
    // Whether the sandbox outpaces the bot is checked by run.ts against the reply benchmark.
    checks: [],
  };
});
