import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Pool, type Dispatcher } from "undici";
import { requestText, type TextResponse } from "../../src/client/transport.js";

// `requestText` (the transport's fast path for every reply and poll) must answer as
// `dispatcher.request` + `body.text()` does: same status, headers and text, and the same errors
// (undici's timeout codes, the signal's reason), over real loopback HTTP.

let server: Server;
let origin: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    if (url === "/json") {
      res.setHeader("x-ratelimit-remaining", "7");
      res.setHeader("set-cookie", ["a=1", "b=2"]);
      res.end('{"result":"success","id":1}');
    } else if (url === "/chunks") {
      // A multi-byte character cut between two chunks.
      const bytes = Buffer.from('{"content":"ünïcödé ✓ 😀","n":2}');
      res.write(bytes.subarray(0, 14));
      setTimeout(() => {
        res.write(bytes.subarray(14, 30));
        setTimeout(() => res.end(bytes.subarray(30)), 5);
      }, 5);
    } else if (url === "/bom") {
      res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]));
    } else if (url === "/error") {
      res.statusCode = 503;
      res.end("<html>busy</html>");
    } else if (url === "/empty") {
      res.statusCode = 204;
      res.end();
    } else if (url === "/echo" && req.method === "POST") {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => res.end(JSON.stringify({ body, type: req.headers["content-type"] })));
    } else if (url === "/stall-headers") {
      // Never answers.
    } else if (url === "/stall-body") {
      res.write('{"a":');
    } else if (url === "/slow") {
      setTimeout(() => res.end("{}"), 300);
    } else if (url === "/reset") {
      req.socket.destroy();
    } else res.end("{}");
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
});

type Outcome = { ok: Omit<TextResponse, "headers"> & { headers: unknown } } | { error: string };

/** What a request came to, comparable between the two ways (the date header left out). */
async function outcome(answer: () => Promise<TextResponse>): Promise<Outcome> {
  try {
    const { statusCode, headers, text } = await answer();
    const { date: _date, ...rest } = headers;
    return { ok: { statusCode, headers: rest, text } };
  } catch (error) {
    const e = error as { code?: string; name?: string; message?: string };
    return { error: e.code ?? `${e.name}: ${e.message}` };
  }
}

async function both(
  options: Omit<Dispatcher.DispatchOptions, "origin">,
  signal?: () => AbortSignal,
): Promise<[Outcome, Outcome]> {
  const pool = new Pool(origin, { connections: 4 });
  try {
    const full = { origin, ...options };
    const viaRequest = await outcome(async () => {
      const res = await pool.request({ ...full, signal: signal?.() });
      return { statusCode: res.statusCode, headers: res.headers, text: await res.body.text() };
    });
    const viaRequestText = await outcome(() => requestText(pool, full, signal?.()));
    return [viaRequestText, viaRequest];
  } finally {
    await pool.destroy();
  }
}

describe("requestText", () => {
  it.each([
    ["a JSON answer with a repeated header", { path: "/json", method: "GET" }],
    ["a body in chunks, a character cut between them", { path: "/chunks", method: "GET" }],
    ["a byte order mark", { path: "/bom", method: "GET" }],
    ["an error page", { path: "/error", method: "GET" }],
    ["no body", { path: "/empty", method: "GET" }],
    [
      "a form body",
      {
        path: "/echo",
        method: "POST",
        body: "type=channel&to=1&content=%C3%BC+x",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      },
    ],
    ["a server that never answers", { path: "/stall-headers", method: "GET", headersTimeout: 100 }],
    ["a body that stalls", { path: "/stall-body", method: "GET", bodyTimeout: 100 }],
    ["a dropped connection", { path: "/reset", method: "GET" }],
  ] as [string, Omit<Dispatcher.DispatchOptions, "origin">][])(
    "answers as request + body.text(): %s",
    async (_, options) => {
      const [fast, slow] = await both(options);
      expect(fast).toEqual(slow);
    },
  );

  it("rejects with the signal's reason, whether it was aborted before or during the request", async () => {
    const before = await both({ path: "/json", method: "GET" }, () =>
      AbortSignal.abort(new Error("stopped before")),
    );
    expect(before[0]).toEqual({ error: "Error: stopped before" });
    expect(before[0]).toEqual(before[1]);
    const during = await both({ path: "/slow", method: "GET" }, () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error("stopped during")), 50);
      return controller.signal;
    });
    expect(during[0]).toEqual({ error: "Error: stopped during" });
    expect(during[0]).toEqual(during[1]);
  });
});
