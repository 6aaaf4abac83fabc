// The cassette recorder over real loopback HTTP: what its thread makes of the answers' text, and that the bot's thread never waits for it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createReadStream, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Transport, type HttpRequest, type HttpResponse } from "../../src/client/transport.js";
import { WHOLE_BODY_MAX } from "../../src/client/json-array-stream.js";
import { MAX_UNWRITTEN, Recorder } from "../../src/record/recorder.js";
import { parseCassette } from "../../src/record/cassette.js";

let server: Server;
let site: string;
let dir: string;

/** A poll's answer with `count` message events, each with a long enough content to make it large. */
function poll(count: number, pad: number): string {
  const events = Array.from({ length: count }, (_, i) => ({
    type: "message",
    id: i,
    message: { id: 100 + i, content: `hello ${"x".repeat(pad)}`, sender_email: "zoe@example.com" },
  }));
  return JSON.stringify({ result: "success", msg: "", events, queue_id: "q1" });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "topicbot-record-thread-"));
  server = createServer((req, res) => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/api/v1/users/me") {
      // Spacing and escapes JSON.stringify would not write: `\u0040` is an `@`, `\/` a `/`.
      res.setHeader("x-ratelimit-remaining", "9");
      res.end(
        '{ "result" : "success", "email" : "mia\\u0040example.com", "full_name":"Mia Ex\\u0061mple", "avatar_url": "https:\\/\\/chat.example.org\\/a.png", "msg": "mail mia\\u0040example.com" }',
      );
    } else if (req.url?.startsWith("/api/v1/events?small")) {
      res.end(poll(3, 10));
    } else if (req.url?.startsWith("/api/v1/events?large")) {
      const body = poll(40, 4000);
      res.setHeader("content-length", Buffer.byteLength(body));
      res.end(body);
    } else res.end('{"result":"success","msg":"","id":42}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const request = (path: string, extra: Partial<HttpRequest> = {}): HttpRequest => ({
  method: "GET",
  path,
  endpoint: `GET ${path}`,
  authenticate: true,
  timeoutMs: 10_000,
  ...extra,
});

describe("the cassette recorder's thread", () => {
  it("sanitizes the answer's text written out as JSON.stringify writes it, whatever escapes the server used", async () => {
    const path = join(dir, "escapes.jsonl");
    const recorder = new Recorder({ path, site: "https://chat.example.org", secrets: ["k3y"] });
    const sender = recorder.wrap(new Transport({ site, email: "bot@example.com", apiKey: "k3y" }));
    const res = await sender.send(request("/users/me"));
    // The transport keeps the text it parsed: the recorder records it, not the body written out again.
    expect(res.text).toContain("mia\\u0040example.com");
    await sender.close();
    const text = await readFile(path, "utf8");
    expect(text).not.toMatch(/mia|example\.com|Mia|chat\.example\.org|k3y/);
    const [me] = parseCassette(text).exchanges;
    expect(me!.body).toEqual({
      result: "success",
      email: "user-1@example.invalid",
      full_name: "User 1",
      avatar_url: "https://server.invalid/a.png",
      msg: "mail user-1@example.invalid",
    });
    expect(me!.headers).toEqual({ "x-ratelimit-remaining": "9" });
  });

  it("records every event of a poll, read whole or handed on one by one", async () => {
    const path = join(dir, "polls.jsonl");
    const recorder = new Recorder({ path, site, enabled: false });
    const sender = recorder.wrap(new Transport({ site, email: "bot@example.com", apiKey: "k" }));
    const taken: unknown[][] = [];
    const stream = { field: "events", take: (items: unknown[]) => void taken.push(items) };
    const small = await sender.send(request("/events", { fields: "small=1", stream }));
    const large = await sender.send(request("/events", { fields: "large=1", stream }));
    expect(Buffer.byteLength(poll(40, 4000))).toBeGreaterThan(WHOLE_BODY_MAX);
    // A large poll's events were handed on as they arrived: no text of it is kept.
    expect([small.text !== undefined, large.text]).toEqual([true, undefined]);
    expect(taken.flat()).toHaveLength(43);
    await sender.close();
    const exchanges = parseCassette(await readFile(path, "utf8")).exchanges;
    const counts = exchanges.map((x) => (x.body!.events as unknown[]).length);
    expect(counts).toEqual([3, 40]);
    expect(exchanges.map((x) => x.fields)).toEqual([{ small: "1" }, { large: "1" }]);
  });

  it("writes on its own thread: a full batch reaches the file while the bot's thread is busy", async () => {
    const path = join(dir, "busy.jsonl");
    const recorder = new Recorder({ path, site });
    const answer: HttpResponse = {
      status: 200,
      headers: {},
      body: { result: "success" },
      text: '{"result":"success"}',
    };
    const sender = recorder.wrap({ send: async () => answer, close: async () => {} });
    // Started: the thread has written the header once the first flush is answered.
    await recorder.flush();
    // 256 answered exchanges: a full batch, handed to the thread at once.
    await Promise.all(
      Array.from({ length: 256 }, (_, n) =>
        sender.send(request("/messages", { method: "POST", fields: `content=${n}` })),
      ),
    );
    // The bot's thread never yields from here: only another thread can write the file.
    const lines = (): number => {
      try {
        return readFileSync(path, "utf8").split("\n").length - 1;
      } catch {
        return 0;
      }
    };
    const waitUntil = Date.now() + 5_000;
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    while (lines() < 257 && Date.now() < waitUntil) Atomics.wait(sleeper, 0, 0, 10);
    expect(lines()).toBe(257);
    await sender.close();
  });

  it("stops recording on a cassette it cannot write, says so once, and the requests go on", async () => {
    const errors: unknown[] = [];
    // The cassette's path is a folder: no file can be opened there.
    const recorder = new Recorder({ path: dir, site, onError: (error) => errors.push(error) });
    const sender = recorder.wrap(new Transport({ site, email: "bot@example.com", apiKey: "k" }));
    for (let n = 0; n < 3; n++) {
      expect((await sender.send(request("/messages", { method: "POST" }))).status).toBe(200);
      await recorder.flush();
    }
    await sender.close();
    expect(errors.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(["EISDIR"]);
  });

  /**
   * A recorder whose cassette is a named pipe nobody reads: opening it for writing blocks the
   * recorder's thread, as a hung network mount would. `release` opens a reader, which unblocks it.
   */
  function hungRecorder(name: string) {
    const fifo = join(dir, name);
    execFileSync("mkfifo", [fifo]);
    const errors: Error[] = [];
    const recorder = new Recorder({ path: fifo, site, onError: (e) => errors.push(e as Error) });
    const answer: HttpResponse = { status: 200, headers: {}, body: {}, text: "{}" };
    const sender = recorder.wrap({ send: async () => answer, close: async () => {} });
    const release = async (): Promise<void> => {
      const reader = createReadStream(fifo);
      reader.resume();
      await new Promise((resolve) => setTimeout(resolve, 200));
      reader.destroy();
    };
    return { recorder, sender, errors, release };
  }

  it("stops recording, and says why, when the cassette's disk does not keep up; the bot's memory stays bounded", async () => {
    const { recorder, sender, errors, release } = hungRecorder("hung.jsonl");
    try {
      for (let n = 0; n < MAX_UNWRITTEN + 1000 && errors.length === 0; n += 256)
        await Promise.all(
          Array.from({ length: 256 }, () => sender.send(request("/messages", { method: "POST" }))),
        );
      expect(errors.map((e) => e.message)).toEqual([
        `the cassette's disk did not keep up: ${MAX_UNWRITTEN} exchanges sent to the recorder's thread were still not written`,
      ]);
      expect(recorder.unwritten).toBeLessThanOrEqual(MAX_UNWRITTEN);
      // The bot goes on; nothing more is queued for the thread.
      expect((await sender.send(request("/messages", { method: "POST" }))).status).toBe(200);
      expect(recorder.unwritten).toBeLessThanOrEqual(MAX_UNWRITTEN);
      await sender.close();
    } finally {
      await release();
    }
  });

  it("does not hang the bot's stop on a disk that hangs: the close gives up after 5 s, saying so", async () => {
    const { sender, errors, release } = hungRecorder("hung-close.jsonl");
    await sender.send(request("/messages", { method: "POST" }));
    const started = performance.now();
    try {
      await sender.close();
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(4_900);
      expect(waited).toBeLessThan(15_000);
      expect(errors.map((e) => e.message)).toEqual([
        "the cassette's disk did not answer within 5 s: 1 exchanges not written are lost",
      ]);
    } finally {
      await release();
    }
  });
});
