// Compressed answers: the client asks for gzip, deflate and br and decodes them; the sandbox gzips large JSON answers when asked.
import { createServer, type IncomingHttpHeaders } from "node:http";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "topicbot/client";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

/** A loopback server answering GET /users/me with a JSON body in the coding given by `?`. */
async function encodingServer(seen: IncomingHttpHeaders[]) {
  const body = JSON.stringify({
    result: "success",
    msg: "",
    user_id: 1,
    email: "bot@example.com",
    delivery_email: "bot@example.com",
    full_name: "B".repeat(20_000),
    is_admin: false,
    is_owner: false,
    is_guest: false,
    is_bot: true,
    is_active: true,
    role: 400,
    timezone: "",
    date_joined: "2026-01-01T00:00:00Z",
  });
  const codings: Record<string, (b: Buffer) => Buffer> = {
    gzip: (b) => gzipSync(b),
    deflate: (b) => deflateSync(b),
    br: (b) => brotliCompressSync(b),
    "gzip, br": (b) => brotliCompressSync(gzipSync(b)),
  };
  let next = "gzip";
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const encoded = codings[next]!(Buffer.from(body));
    res.writeHead(200, { "content-type": "application/json", "content-encoding": next });
    res.end(encoded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    site: `http://127.0.0.1:${port}`,
    use: (coding: string) => (next = coding),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("compressed answers", () => {
  let sandbox: Sandbox | undefined;
  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it("the client asks for gzip, deflate and br, and reads each (and two in a row)", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = await encodingServer(seen);
    const client = createClient({ site: server.site, email: "bot@example.com", apiKey: "k" });
    try {
      for (const coding of ["gzip", "deflate", "br", "gzip, br"]) {
        server.use(coding);
        const me = await client.users.me({}, { retry: false });
        expect(me.full_name).toHaveLength(20_000);
      }
      expect(seen.every((h) => h["accept-encoding"] === "gzip, deflate, br")).toBe(true);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("the sandbox gzips a large JSON answer for a client that asks, and not for one that does not", async () => {
    sandbox = await startSandbox();
    const mia = sandbox.user("mia");
    for (let i = 0; i < 200; i++)
      sandbox.realm.addUser({
        email: `u${i}@example.com`,
        fullName: `User ${i}`,
        password: "pw",
        role: 400,
        isBot: false,
        botType: null,
        botOwnerId: null,
      });
    const authorization = `Basic ${Buffer.from(`${mia.email}:${mia.apiKey}`).toString("base64")}`;
    const get = (headers: Record<string, string>) =>
      fetch(`${sandbox!.url}/api/v1/users`, { headers: { authorization, ...headers } });
    // fetch decodes for us; the headers say what came over the wire.
    const zipped = await get({ "accept-encoding": "gzip" });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(((await zipped.json()) as { members: unknown[] }).members.length).toBeGreaterThan(200);
    const plain = await get({ "accept-encoding": "identity" });
    expect(plain.headers.get("content-encoding")).toBeNull();
    await plain.arrayBuffer();
    // A small answer goes as it is.
    const small = await fetch(`${sandbox.url}/api/v1/users/me`, {
      headers: { authorization, "accept-encoding": "gzip" },
    });
    expect(small.headers.get("content-encoding")).toBeNull();
    await small.arrayBuffer();
    // And the client reads the large one compressed.
    const client = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
    try {
      expect((await client.users.list()).members.length).toBeGreaterThan(200);
    } finally {
      await client.close();
    }
  });
});
