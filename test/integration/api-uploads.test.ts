// Contract: POST /user_uploads and fetching uploaded files, against the sandbox (and a real server when configured).
import { afterAll, beforeAll, expect, it } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { request } from "undici";
import { describeContract, failure, needSandbox, rawRequest } from "./contract/servers.js";

describeContract("POST /user_uploads", (server) => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "topicbot-upload-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const fetchAs = async (handle: string, url: string) => {
    const account = server().sandbox!.user(handle);
    const res = await request(`${server().sandbox!.url}${url}`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${account.email}:${account.apiKey}`).toString("base64")}`,
      },
    });
    return { status: res.statusCode, body: Buffer.from(await res.body.arrayBuffer()) };
  };

  it("uploads from a path, a Buffer and a stream; url, uri and filename come back", async () => {
    const path = join(dir, "notes.txt");
    await writeFile(path, "from a file");
    const fromPath = await server().client().uploads.upload({ file: path });
    expect(fromPath.url).toMatch(/^\/user_uploads\/.+\/notes\.txt$/);
    expect(fromPath.uri).toBe(fromPath.url);
    expect(fromPath.filename).toBe("notes.txt");
    const fromBuffer = await server()
      .client()
      .uploads.upload({
        file: Buffer.from("bytes"),
        filename: "b.bin",
      });
    expect(fromBuffer.filename).toBe("b.bin");
    const fromStream = await server()
      .client()
      .uploads.upload({
        file: Readable.from([Buffer.from("str"), Buffer.from("eam")]),
        filename: "s.txt",
        content_type: "text/plain",
      });
    if (server().sandbox) {
      expect((await fetchAs("bot", fromPath.url)).body.toString()).toBe("from a file");
      expect((await fetchAs("bot", fromStream.url)).body.toString()).toBe("stream");
    }
  });

  it("sanitises the stored filename", async (ctx) => {
    needSandbox(ctx, server());
    const res = await server()
      .client()
      .uploads.upload({
        file: Buffer.from("x"),
        filename: "my <weird> file?.txt",
      });
    expect(res.filename).toBe("my-weird-file.txt");
    const dots = await server()
      .client()
      .uploads.upload({ file: Buffer.from("x"), filename: "???" });
    expect(dots.filename).toBe("uploaded-file");
  });

  it("refuses a file over max_file_upload_size_mib", async (ctx) => {
    needSandbox(ctx, server());
    const realm = server().sandbox!.realm;
    const before = realm.settings.maxFileUploadSizeMib;
    realm.settings.maxFileUploadSizeMib = 1;
    try {
      const error = await failure(
        server()
          .client()
          .uploads.upload({ file: Buffer.alloc(1024 * 1024 + 1), filename: "big.bin" }),
      );
      expect(error).toMatchObject({ code: "BAD_REQUEST" });
    } finally {
      realm.settings.maxFileUploadSizeMib = before;
    }
  });

  // A file that exists but may not be read is a 403 page, as the server's serve_file (404 is for missing files).
  it("only the uploader fetches the file until a message visible to the requester links it", async (ctx) => {
    needSandbox(ctx, server());
    const { url } = await server()
      .client()
      .uploads.upload({
        file: Buffer.from("secret"),
        filename: "s.txt",
      });
    expect((await fetchAs("mia", url)).status).toBe(403);
    expect((await fetchAs("bot", url)).status).toBe(200);
    const mia = server().sandbox!.user("mia");
    const adam = server().sandbox!.user("adam");
    await server()
      .client()
      .messages.send({
        type: "direct",
        to: [mia.userId],
        content: `[s.txt](${url})`,
      });
    expect((await fetchAs("mia", url)).status).toBe(200);
    expect((await fetchAs("adam", url)).status).toBe(403);
    await server()
      .client()
      .messages.send({
        type: "channel",
        to: "general",
        topic: "files",
        content: `[s.txt](${url})`,
      });
    expect((await fetchAs("adam", url)).status).toBe(200);
    expect(adam.userId).toBeGreaterThan(0);
  });

  it("posting the path of a file you cannot read shares nothing (the server claims only files the sender may read)", async (ctx) => {
    needSandbox(ctx, server());
    const { url } = await server()
      .client()
      .uploads.upload({ file: Buffer.from("private"), filename: "p.txt" });
    await server()
      .client("admin")
      .messages.send({ type: "channel", to: "general", topic: "files", content: `[p](${url})` });
    expect((await fetchAs("adam", url)).status).toBe(403);
    expect((await fetchAs("mia", url)).status).toBe(403);
  });

  it("without a file part, the server refuses with BAD_REQUEST", async () => {
    const res = await rawRequest(server(), server().main, "POST", "/user_uploads", {});
    expect(res.body).toMatchObject({ result: "error", code: "BAD_REQUEST" });
  });
});
