// The `/sandbox/*` control routes: a token when the sandbox listens beyond loopback, and fault routes named with path parameters.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isLoopback } from "../../src/sandbox/control.js";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

describe("sandbox control token", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    // The token a non-loopback sandbox makes and prints, given here so the test stays on loopback.
    sandbox = await startSandbox({ controlToken: "let-me-in" });
  });
  afterAll(() => sandbox.close());

  const control = (token?: string) =>
    fetch(`${sandbox.url}/sandbox/faults`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  it("refuses control requests without the token or with a wrong one, naming what is needed", async () => {
    for (const token of [undefined, "wrong"]) {
      const res = await control(token);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({
        code: "UNAUTHORIZED",
        msg: expect.stringContaining("Authorization: Bearer"),
      });
    }
    expect((await control("let-me-in")).status).toBe(200);
    expect(sandbox.controlToken).toBe("let-me-in");
  });

  it("needs no token on loopback, and makes one for any other address", async () => {
    const local = await startSandbox();
    try {
      expect(local.controlToken).toBeNull();
      expect((await fetch(`${local.url}/sandbox/faults`)).status).toBe(200);
    } finally {
      await local.close();
    }
    for (const host of ["127.0.0.1", "127.3.2.1", "::1", "localhost"])
      expect(isLoopback(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.1.4", "example.test"])
      expect(isLoopback(host)).toBe(false);
  });
});

describe("fault routes with path parameters", () => {
  it("a rule names the route as declared, {message_id} and all, and matches every message ID", async () => {
    const sandbox = await startSandbox();
    try {
      const mia = sandbox.user("mia");
      const edit = (id: number) =>
        fetch(`${sandbox.url}/api/v1/messages/${id}`, {
          method: "PATCH",
          headers: {
            authorization: `Basic ${Buffer.from(`${mia.email}:${mia.apiKey}`).toString("base64")}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: "content=edited",
        });
      sandbox.faults.add({ route: "PATCH /messages/123", status: 503 });
      expect((await edit(123)).status).not.toBe(503);
      sandbox.faults.clear();
      sandbox.faults.add({ route: "PATCH /messages/{message_id}", status: 503, times: 2 });
      expect((await edit(123)).status).toBe(503);
      expect((await edit(7)).status).toBe(503);
      expect((await edit(7)).status).not.toBe(503);
    } finally {
      await sandbox.close();
    }
  });
});
