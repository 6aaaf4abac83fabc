// Request bodies the sandbox reads over loopback: form fields as URLSearchParams reads them, a client that goes away mid-body, a body over the limit.
// Upstream: zerver/lib/request.py reads the fields Django decodes from the form (QueryDict: `+` a space, %-escapes).
import { connect } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

const basic = (u: { email: string; apiKey: string }): string =>
  `Basic ${Buffer.from(`${u.email}:${u.apiKey}`).toString("base64")}`;

/** Writes `head` and the start of a body on a raw socket, then closes it before the body ends. */
function abandonMidBody(url: string, head: string, partialBody: string): Promise<void> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(head + partialBody, () => {
        // Give the server a moment to start reading before the client goes.
        setTimeout(() => socket.destroy(), 50);
      });
    });
    socket.on("error", reject);
    socket.on("close", () => resolve());
  });
}

describe("sandbox request bodies", () => {
  let sandbox: Sandbox;
  const errors = vi.spyOn(console, "error");
  beforeAll(async () => {
    // The body limit is the upload limit plus 1 MiB: 1 MiB here.
    sandbox = await startSandbox({ settings: { maxFileUploadSizeMib: 0 } });
  });
  afterAll(() => sandbox.close());
  afterEach(() => errors.mockClear());

  const post = (body: string) =>
    fetch(`${sandbox.url}/api/v1/messages`, {
      method: "POST",
      headers: {
        authorization: basic(sandbox.user("mia")),
        "content-type": "application/x-www-form-urlencoded",
      },
      body,
    });

  it("reads escapes, `+` and repeated fields as URLSearchParams does", async () => {
    const res = await post(
      "type=channel&to=general&topic=a+b%2Bc&content=first&content=caf%C3%A9+%25+50%&&",
    );
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: number };
    const stored = sandbox.realm.message(id)!;
    expect(stored.topic).toBe("a b+c");
    // The last of repeated fields wins; a stray `%` is kept as it is.
    expect(stored.content).toBe("café % 50%");
  });

  it("names an unknown field in ignored_parameters_unsupported; a field called __proto__ breaks nothing", async () => {
    const res = await post("type=channel&to=general&topic=t&content=x&__proto__=1&colour=red");
    expect(res.status).toBe(200);
    // `__proto__` is not named (`in` finds it on every object): as before the fast path.
    expect(await res.json()).toMatchObject({
      result: "success",
      ignored_parameters_unsupported: ["colour"],
    });
  });

  it("takes no harm and logs no error when a client goes away mid-body", async () => {
    const before = sandbox.realm.messages.length;
    const mia = sandbox.user("mia");
    const body = "type=channel&to=general&topic=t&content=" + "x".repeat(64);
    const head =
      `POST /api/v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: ${basic(mia)}\r\nContent-Type: application/x-www-form-urlencoded\r\n` +
      `Content-Length: ${body.length + 1000}\r\n\r\n`;
    await abandonMidBody(sandbox.url, head, body);
    // The next request is served as usual, and the abandoned one stored nothing.
    const res = await post("type=channel&to=general&topic=t&content=after");
    expect(res.status).toBe(200);
    expect(sandbox.realm.messages.length).toBe(before + 1);
    expect(errors).not.toHaveBeenCalled();
  });

  it("stops reading a body over the limit, stores nothing and keeps serving", async () => {
    const before = sandbox.realm.messages.length;
    const oversized = `type=channel&to=general&topic=t&content=${"y".repeat(1024 * 1024 + 10)}`;
    const outcome = await post(oversized).then(
      (res) => res.status,
      (error: unknown) => (error as Error).name,
    );
    // The stream is destroyed as soon as the limit is passed: a 413 if it got out, else a reset.
    expect([413, "TypeError"]).toContain(outcome);
    expect(sandbox.realm.messages.length).toBe(before);
    expect((await post("type=channel&to=general&topic=t&content=after")).status).toBe(200);
    expect(errors).not.toHaveBeenCalled();
  });
});
