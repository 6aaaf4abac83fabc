// A header the sandbox has seen before is checked against the realm as it is now: a deactivated user, a new API key, a malformed key every time.
// Upstream: zerver/decorator.py access_user_by_api_key and validate_api_key (malformed, invalid, deactivated), as zerver/tests/test_decorators.py checks them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";

const basic = (email: string, apiKey: string): string =>
  `Basic ${Buffer.from(`${email}:${apiKey}`).toString("base64")}`;

describe("sandbox authentication of a header seen before", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  const me = async (authorization: string) => {
    const res = await fetch(`${sandbox.url}/api/v1/users/me`, { headers: { authorization } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it("refuses a user deactivated since, and takes them back once reactivated", async () => {
    const gus = sandbox.user("gus");
    const header = basic(gus.email, gus.apiKey);
    expect((await me(header)).status).toBe(200);
    const user = sandbox.realm.users.get(gus.userId)!;
    user.isActive = false;
    try {
      expect(await me(header)).toEqual({
        status: 401,
        body: expect.objectContaining({ code: "USER_DEACTIVATED" }) as unknown,
      });
    } finally {
      user.isActive = true;
    }
    expect((await me(header)).status).toBe(200);
  });

  it("refuses an API key replaced since", async () => {
    const max = sandbox.user("max");
    const header = basic(max.email, max.apiKey);
    expect((await me(header)).status).toBe(200);
    const user = sandbox.realm.users.get(max.userId)!;
    const old = user.apiKey;
    user.apiKey = "0123456789abcdef0123456789abcdef";
    try {
      expect(await me(header)).toEqual({
        status: 401,
        body: expect.objectContaining({
          code: "INVALID_API_KEY",
          msg: "Invalid API key",
        }) as unknown,
      });
      expect((await me(basic(max.email, user.apiKey))).status).toBe(200);
    } finally {
      user.apiKey = old;
    }
  });

  it("calls a malformed key malformed every time", async () => {
    const header = basic(sandbox.user("mia").email, "short");
    for (let i = 0; i < 3; i++)
      expect(await me(header)).toEqual({
        status: 401,
        body: expect.objectContaining({
          code: "INVALID_API_KEY",
          msg: "Malformed API key",
        }) as unknown,
      });
  });
});
