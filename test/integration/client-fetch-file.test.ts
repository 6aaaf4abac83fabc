// ApiClient.fetchFile (src/client/file-fetch.ts): a file the server serves, redirects followed, credentials kept to the site.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, NetworkError } from "topicbot/client";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A loopback server answering with `answer`, and the headers of each request it got. */
async function serve(
  answer: (path: string) => { status: number; headers?: Record<string, string>; body?: string },
): Promise<{ url: string; seen: { path: string; headers: IncomingHttpHeaders }[] }> {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((req, res) => {
    seen.push({ path: req.url!, headers: req.headers });
    const a = answer(req.url!);
    res.writeHead(a.status, a.headers).end(a.body ?? "");
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("client.fetchFile", () => {
  it("follows a redirect to another origin (object storage), with the credentials only on the site's own", async () => {
    const storage = await serve(() => ({
      status: 200,
      headers: { "content-type": "image/png" },
      body: "bytes",
    }));
    const site = await serve((path) =>
      path.startsWith("/user_uploads/temporary/")
        ? { status: 302, headers: { location: `${storage.url}/bucket/file.png?sig=1` } }
        : { status: 404 },
    );
    const client = createClient({ site: site.url, email: "bot@x.test", apiKey: "KEY", env: {} });
    try {
      const file = await client.fetchFile("/user_uploads/temporary/tok/file.png", {
        authenticate: true,
      });
      expect(file.status).toBe(200);
      expect(file.data.toString()).toBe("bytes");
      expect(file.headers["content-type"]).toBe("image/png");
    } finally {
      await client.close();
    }
    expect(site.seen[0]!.headers.authorization).toMatch(/^Basic /);
    // Taken as served: a compressed answer would be handed on compressed.
    expect(site.seen[0]!.headers["accept-encoding"]).toBeUndefined();
    expect(storage.seen).toHaveLength(1);
    expect(storage.seen[0]!.path).toBe("/bucket/file.png?sig=1");
    expect(storage.seen[0]!.headers.authorization).toBeUndefined();
  });

  it("sends no credentials unless asked, returns any other status as it is, and stops after five redirects", async () => {
    let hops = 0;
    const site = await serve((path) =>
      path === "/missing"
        ? { status: 404, body: "no" }
        : { status: 302, headers: { location: `/loop${++hops}` } },
    );
    const client = createClient({ site: site.url, email: "bot@x.test", apiKey: "KEY", env: {} });
    try {
      const missing = await client.fetchFile("/missing");
      expect(missing.status).toBe(404);
      expect(missing.data.toString()).toBe("no");
      expect(site.seen[0]!.headers.authorization).toBeUndefined();
      const loop = await client.fetchFile("/loop0").catch((e: unknown) => e);
      expect(loop).toBeInstanceOf(NetworkError);
      expect((loop as Error).message).toMatch(/more than 5 redirects/);
    } finally {
      await client.close();
    }
  });

  it("names the file, not a temporary URL's token, when the connection fails", async () => {
    const client = createClient({
      site: "http://127.0.0.1:9",
      email: "bot@x.test",
      apiKey: "KEY",
      env: {},
    });
    try {
      const error = await client
        .fetchFile("/user_uploads/temporary/SECRET/f.txt")
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NetworkError);
      expect((error as Error).message).toContain(
        "GET http://127.0.0.1:9/user_uploads/temporary/…/f.txt",
      );
      expect((error as Error).message).not.toContain("SECRET");
      expect((error as Error).message).not.toContain("KEY");
    } finally {
      await client.close();
    }
  });
});
