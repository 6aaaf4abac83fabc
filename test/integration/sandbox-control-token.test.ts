// The `/sandbox/*` control routes need a token when the sandbox listens beyond loopback.
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
