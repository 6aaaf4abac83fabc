// The webhook receiver under abuse: strangers' bodies bounded, early refusals, quiet aborts, replays, long topics.
import { request as httpRequest, type ClientRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { createClient } from "../../src/client/client.js";
import { sign } from "../../src/webhooks/auth.js";
import { configRoute, webhookEntryConfig, type ChannelPost } from "../../src/webhooks/config.js";
import { createReceiver, type WebhookReceiver } from "../../src/webhooks/receiver.js";
import { githubRoute } from "../../plugins/github/index.js";
import { captureLog } from "../helpers/log.js";

const SECRET = "whsec-8d2b4f6a0c";
const MiB = 1024 * 1024;

/** Polls `check` every 20 ms until it holds; fails after `ms` saying what it waited for. */
async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Held {
  req: ClientRequest;
  /** The status once the receiver answered. */
  status?: number;
}

/** Opens a POST that sends `bytes` of its declared `length` and holds the rest back. */
function hold(url: string, headers: Record<string, string>, length: number, bytes: number): Held {
  const held: Held = {
    req: httpRequest(`${url}/hook`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(length), ...headers },
    }),
  };
  held.req.on("response", (res) => {
    held.status = res.statusCode;
    res.resume();
  });
  held.req.on("error", () => undefined);
  held.req.flushHeaders();
  if (bytes > 0) held.req.write(Buffer.alloc(bytes, 0x20));
  return held;
}

describe("webhook receiver under abuse", () => {
  let receiver: WebhookReceiver | undefined;
  const log = captureLog();
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  const signatureRoute = async (options: Parameters<typeof createReceiver>[0] = {}) => {
    receiver = createReceiver({ logger: log.logger, maxBodyBytes: 2 * MiB, ...options });
    receiver.route("/hook", { auth: { type: "github", secret: SECRET } }, () => undefined);
    return (await receiver.listen()).url;
  };

  it("refuses a request without its signature header before reading the body", async () => {
    const url = await signatureRoute();
    // Headers only: a body of 1 MiB is declared and never sent. The answer cannot wait for it.
    const held = hold(url, {}, MiB, 0);
    await until("a 401 without the body", () => held.status !== undefined, 10_000);
    expect(held.status).toBe(401);
    held.req.destroy();
  });

  it("bounds what strangers hold at once, answers the rest 503, and gives it all back", async () => {
    const cap = 4 * MiB;
    const url = await signatureRoute({ maxPendingBodyBytes: cap, maxPendingRequests: 16 });
    const forged = { "x-hub-signature-256": `sha256=${"0".repeat(64)}` };
    // 40 strangers with a well-formed (wrong) signature, each holding 1 MiB minus one byte.
    const clients = Array.from({ length: 40 }, () => hold(url, forged, MiB, MiB - 1));
    let peak = 0;
    await until("every stranger answered or holding", () => {
      peak = Math.max(peak, receiver!.pending.bytes);
      const answered = clients.filter((c) => c.status !== undefined).length;
      return answered >= 40 - 16 && receiver!.pending.requests + answered >= 40;
    });
    expect(peak).toBeLessThanOrEqual(cap);
    expect(clients.filter((c) => c.status === 503).length).toBeGreaterThan(0);
    expect(receiver!.pending.bytes).toBeLessThanOrEqual(cap);
    for (const c of clients) c.req.destroy();
    await until("strangers' bytes given back", () => receiver!.pending.bytes === 0);
    expect(receiver!.pending).toEqual({ requests: 0, bytes: 0 });
  });

  it("logs clients that go away mid-body once, at debug, with a count", async () => {
    const url = await signatureRoute();
    const before = log.lines().length;
    const forged = { "x-hub-signature-256": `sha256=${"0".repeat(64)}` };
    const clients = Array.from({ length: 20 }, () => hold(url, forged, MiB, 64 * 1024));
    // (`pending` is the receiver's internal gauge of strangers' requests and bytes.)
    await until("all 20 being read", () => receiver!.pending.requests === 20);
    for (const c of clients) c.req.destroy();
    await until("all 20 gone", () => receiver!.pending.requests === 0);
    await receiver!.close();
    const lines = log.lines().slice(before);
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);
    const aborts = lines.filter((l) => l.aborted !== undefined);
    expect(aborts.length).toBeLessThanOrEqual(2);
    expect(aborts.every((l) => l.level === 20)).toBe(true);
    expect(aborts.reduce((n, l) => n + (l.aborted as number), 0)).toBe(20);
  });

  it("answers a replayed GitHub delivery without posting again", async () => {
    const posts: ChannelPost[] = [];
    receiver = createReceiver({ logger: log.logger });
    receiver.mount(
      githubRoute({
        secret: SECRET,
        channel: "dev",
        send: async (post) => {
          posts.push(post);
        },
      }),
    );
    const { url } = await receiver.listen();
    const body = JSON.stringify({
      action: "published",
      repository: { name: "widgets" },
      sender: { login: "ada" },
      release: { tag_name: "v1", html_url: "https://x.test/v1" },
    });
    const deliver = () =>
      fetch(`${url}/github`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-github-event": "release",
          "x-github-delivery": "d-1",
          "x-hub-signature-256": `sha256=${sign(body, SECRET)}`,
        },
        body,
      });
    expect(await (await deliver()).json()).toEqual({ ok: true });
    const replay = await deliver();
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ ok: true, duplicate: true });
    expect(posts).toHaveLength(1);
    // The delivery header is not signed: a replay with a fresh one, none, or a doubled one is
    // still the same signed body.
    const replayWith = (headers: [string, string][]) =>
      fetch(`${url}/github`, {
        method: "POST",
        headers: [
          ["content-type", "application/json"],
          ["x-github-event", "release"],
          ["x-hub-signature-256", `sha256=${sign(body, SECRET)}`],
          ...headers,
        ],
        body,
      });
    const variants: [string, string][][] = [
      [["x-github-delivery", "d-2"]],
      [],
      [
        ["x-github-delivery", "d-1"],
        ["x-github-delivery", "d-3"],
      ],
    ];
    for (const headers of variants) {
      const again = await replayWith(headers);
      expect(await again.json()).toEqual({ ok: true, duplicate: true });
    }
    expect(posts).toHaveLength(1);
  });

  it("mends a payload's topic and content the server would refuse instead of failing with 500", async () => {
    const sandbox = await startSandbox();
    const client = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
    });
    try {
      const entry = webhookEntryConfig.parse({
        path: "/hooks/ci",
        auth: { type: "none" },
        channel: "general",
        topic: "{{ payload.title }}",
        template: "{{ payload.log }}",
      });
      const route = configRoute(entry, (post) =>
        client.messages.send({ type: "channel", ...post }),
      );
      const posted: [string, string][] = [];
      for (const payload of [
        { title: "deploy\nfailed", log: "ok" },
        { title: "  \t ", log: "ok" },
        { title: "\u0000", log: "ok" },
        { title: "t", log: "a\u0000b" },
        { title: "t", log: "\u0000" },
      ]) {
        await route.handler({
          path: "/hooks/ci",
          payload,
          rawBody: Buffer.alloc(0),
          headers: {},
          query: new URLSearchParams(),
        });
        const m = sandbox.realm.messages.at(-1)!;
        posted.push([m.topic, m.content]);
      }
      expect(posted).toEqual([
        ["deploy failed", "ok"],
        ["/hooks/ci", "ok"],
        ["/hooks/ci", "ok"],
        ["t", "ab"],
        ["t", "(empty)"],
      ]);
    } finally {
      await sandbox.close();
    }
  });

  it("cuts a payload's topic and content to the server's limits instead of failing", async () => {
    const sandbox = await startSandbox();
    const client = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
    });
    try {
      const entry = webhookEntryConfig.parse({
        path: "/hook",
        auth: { type: "none" },
        channel: "general",
        topic: "{{ payload.title }}",
        template: "{{ payload.log }}",
      });
      const route = configRoute(entry, (post) =>
        client.messages.send({ type: "channel", ...post }),
      );
      const title = "deploy ".repeat(40);
      const log = "line\n".repeat(3000);
      await route.handler({
        path: "/hook",
        payload: { title, log },
        rawBody: Buffer.alloc(0),
        headers: {},
        query: new URLSearchParams(),
      });
      const posted = sandbox.realm.messages.at(-1)!;
      expect([...posted.topic].length).toBe(60);
      expect(posted.topic.endsWith("…")).toBe(true);
      expect([...posted.content].length).toBeLessThanOrEqual(10_000);
      expect(posted.content).toMatch(/cut: the message was longer than the server allows\)$/);
    } finally {
      await client.close();
      await sandbox.close();
    }
  });
});
