import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Readable } from "node:stream";
import { MockAgent } from "undici";
import { createClient } from "../../src/client/index.js";
import { encodeMultipart } from "../../src/client/multipart.js";

const SITE = "http://chat.test";

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString("utf8");
}

describe("multipart encoding", () => {
  it("writes one file part with its filename and type, after the fields", async () => {
    const body = await encodeMultipart({
      file: Buffer.from("hello"),
      filename: 'a "b".txt',
      contentType: "text/plain",
      fields: new URLSearchParams({ x: "1" }),
    });
    const boundary = /boundary=(.+)$/.exec(body.contentType)![1]!;
    const out = await text(body.stream);
    expect(out).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="x"\r\n\r\n1\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a %22b%22.txt"\r\n` +
        `Content-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`,
    );
    expect(body.fileSize).toBe(5);
  });
});

describe("uploads through the client", () => {
  let agent: MockAgent;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
  });
  afterEach(() => agent.close());

  it("does not resend a stream after a rate limit, but resends a buffer", async () => {
    const client = createClient({ site: SITE, email: "b@c.d", apiKey: "k", dispatcher: agent });
    const pool = agent.get(SITE);
    const limited = { result: "error", code: "RATE_LIMIT_HIT", msg: "slow", "retry-after": 0.01 };
    pool.intercept({ path: "/api/v1/user_uploads", method: "POST" }).reply(429, limited);
    await expect(
      client.uploads.upload({ file: Readable.from([Buffer.from("x")]), filename: "s.txt" }),
    ).rejects.toMatchObject({ code: "RATE_LIMIT_HIT" });
    pool.intercept({ path: "/api/v1/user_uploads", method: "POST" }).reply(429, limited);
    pool.intercept({ path: "/api/v1/user_uploads", method: "POST" }).reply(200, {
      result: "success",
      msg: "",
      url: "/user_uploads/1/a/s.txt",
      filename: "s.txt",
    });
    await expect(
      client.uploads.upload({ file: Buffer.from("x"), filename: "s.txt" }),
    ).resolves.toMatchObject({
      url: "/user_uploads/1/a/s.txt",
    });
  });

  it("names a bad file argument before sending", async () => {
    const client = createClient({ site: SITE, email: "b@c.d", apiKey: "k", dispatcher: agent });
    await expect(client.uploads.upload({ file: 42 as never })).rejects.toMatchObject({
      parameter: "file",
    });
  });
});
