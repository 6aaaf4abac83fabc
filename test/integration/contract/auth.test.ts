// Authentication behaviours ported from the server's zerver/tests/test_decorators.py and test_auth_backends.py
// (zerver/decorator.py authenticated_rest_api_view, validate_api_key, access_user_by_api_key; lib/rest.py).
import { expect, it } from "vitest";
import { describeContract, needSandbox, rawRequest, type ContractServer } from "./servers.js";

const me = async (server: ContractServer, authorization?: string) => {
  const res = await fetch(`${server.site}/api/v1/users/me`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.json()) as Record<string, unknown>,
  };
};
const basic = (email: string, key: string) =>
  `Basic ${Buffer.from(`${email}:${key}`).toString("base64")}`;

describeContract(
  "authentication (upstream test_decorators.py, test_auth_backends.py)",
  (server) => {
    // upstream: test_decorators.py DecoratorTestCase.test_authenticated_rest_api_view (no credentials: json_unauthorized)
    it("answers a request without credentials with 401 UNAUTHORIZED and WWW-Authenticate", async () => {
      const res = await me(server());
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
      expect(res.body).toMatchObject({
        result: "error",
        code: "UNAUTHORIZED",
        msg: "Not logged in: API authentication or user session required",
      });
    });

    // upstream: test_decorators.py DecoratorTestCase.test_authenticated_rest_api_view ("This endpoint requires HTTP basic authentication.")
    it("refuses another authorization scheme with 400", async () => {
      const res = await me(server(), "Bearer abcdef");
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: "BAD_REQUEST",
        msg: "This endpoint requires HTTP basic authentication.",
      });
    });

    // upstream: test_decorators.py DecoratorTestCase.test_authenticated_rest_api_view ("Invalid authorization header for basic auth")
    it("refuses a malformed Basic header with 401 and WWW-Authenticate", async () => {
      const res = await me(server(), `Basic ${Buffer.from("no-colon").toString("base64")}`);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="zulip"');
      expect(res.body).toMatchObject({
        code: "UNAUTHORIZED",
        msg: "Invalid authorization header for basic auth",
      });
    });

    // upstream: test_decorators.py (zerver/lib/users.py access_user_by_api_key: "Malformed API key")
    it("refuses a key that is not 32 letters and digits as malformed", async () => {
      const account = server().account(server().main)!;
      const res = await me(server(), basic(account.email, "short"));
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: "INVALID_API_KEY", msg: "Malformed API key" });
    });

    // upstream: test_decorators.py DecoratorTestCase.test_authenticated_rest_api_view (a wrong key: "Invalid API key")
    it("refuses a well-formed wrong key as invalid", async () => {
      const account = server().account(server().main)!;
      const res = await me(server(), basic(account.email, "x".repeat(32)));
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: "INVALID_API_KEY", msg: "Invalid API key" });
    });

    // upstream: zerver/decorator.py validate_api_key (whitespace around the key is stripped)
    it("accepts the key with whitespace around it", async () => {
      const account = server().account(server().main)!;
      const res = await me(server(), basic(account.email, ` ${account.apiKey} `));
      expect(res.status).toBe(200);
    });

    // upstream: test_decorators.py DecoratorTestCase.test_authenticated_rest_api_view (another user's key with this email)
    it("refuses a key that belongs to another user", async (ctx) => {
      needSandbox(ctx, server());
      const mia = server().account("member")!;
      const bot = server().account("bot")!;
      const res = await me(server(), basic(mia.email, bot.apiKey));
      expect(res.body).toMatchObject({ code: "INVALID_API_KEY", msg: "Invalid API key" });
    });

    // upstream: test_auth_backends.py FetchAPIKeyTest.test_wrong_password (AUTHENTICATION_FAILED)
    it("refuses a wrong password at fetch_api_key", async (ctx) => {
      needSandbox(ctx, server());
      const res = await rawRequest(server(), undefined, "POST", "/fetch_api_key", {
        username: server().account("member")!.email,
        password: "wrong",
      });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({
        code: "AUTHENTICATION_FAILED",
        msg: "Your username or password is incorrect",
      });
    });
  },
);
