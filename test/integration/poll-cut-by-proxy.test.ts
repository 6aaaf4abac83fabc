// Long polls cut by a reverse proxy's read timeout (a real nginx, proxy_read_timeout shorter than the server holds a poll).
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { createClient } from "topicbot/client";
import { EventQueue } from "../../src/inbound/event-queue.js";
import type { AnyEvent } from "../../src/api/events.js";
import { captureLog } from "../helpers/log.js";
import {
  makePki,
  startNginx,
  type TestNginx,
  type TestPki,
} from "../helpers/network-components.js";

let sandbox: Sandbox;
let pki: TestPki;
let nginx: TestNginx;

beforeAll(async () => {
  // The sandbox holds a poll 30 s before its heartbeat; nginx gives up after 2 s.
  sandbox = await startSandbox({ heartbeatSeconds: 30 });
  pki = await makePki();
  nginx = await startNginx(pki, sandbox.url, { readTimeoutSeconds: 2 });
}, 60_000);

afterAll(async () => {
  await nginx?.close();
  await pki?.close();
  await sandbox?.close();
});

it("keeps its queue through polls nginx cuts, explains once at info, and delivers what comes", async () => {
  const log = captureLog();
  const client = createClient({
    site: nginx.site,
    email: sandbox.bot.email,
    apiKey: sandbox.bot.apiKey,
    tls: { ca: await readFile(pki.ca, "utf8") },
    env: {},
  });
  const seen: AnyEvent[] = [];
  const queue = new EventQueue({
    client,
    register: { event_types: ["message"] },
    logger: log.logger,
    minCutMs: 1_000,
    // Any failure counted as one would drop the queue at once.
    reregisterAfterMs: 1,
  });
  try {
    await queue.start((events) => void seen.push(...events));
    const firstQueue = queue.queueId;
    const deadline = Date.now() + 40_000;
    while (queue.cutPolls < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(queue.cutPolls).toBeGreaterThanOrEqual(3);

    const mia = sandbox.user("mia");
    const human = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
    await human.messages.send({
      type: "direct",
      to: [sandbox.bot.userId],
      content: "still there?",
    });
    await human.close();
    while (seen.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(seen.map((e) => e.type)).toEqual(["message"]);

    expect(queue.queueId).toBe(firstQueue);
    expect(queue.registrations).toBe(1);
    expect(queue.pollState.failures).toBe(0);
    const lines = log.lines();
    const hints = lines.filter((l) => String(l.msg).includes("proxy_read_timeout"));
    expect(hints).toHaveLength(1);
    expect(hints[0]!.level).toBe(30);
    expect(String(hints[0]!.msg)).toContain("HTTP 504");
    expect(lines.filter((l) => (l.level as number) >= 40)).toEqual([]);
  } finally {
    await queue.stop();
    await client.close();
  }
}, 60_000);
