// Contract: authentication errors, POST /fetch_api_key (auth.fetchApiKey) and logging in with a password.
import { expect, it } from "vitest";
import type { ApiError } from "topicbot/client";
import { createClient, isFatal, loginWithPassword } from "topicbot/client";
import { describeContract, expectApiError, needSandbox, rawRequest } from "./contract/servers.js";

describeContract("Authentication", (server) => {
  it("a wrong API key is INVALID_API_KEY with HTTP 401, and fatal", async () => {
    const account = server().account("member") ?? server().account("admin")!;
    const client = createClient({ site: server().site, email: account.email, apiKey: "wrong" });
    try {
      const error = await expectApiError(client.users.me(), "INVALID_API_KEY", 401);
      expect(isFatal(error)).toBe(true);
      expect(error.message).not.toContain(account.apiKey);
    } finally {
      await client.close();
    }
  });

  it("an unknown email is INVALID_API_KEY too", async () => {
    const client = createClient({
      site: server().site,
      email: "nobody@nowhere.test",
      apiKey: "x".repeat(32),
    });
    try {
      await expectApiError(client.users.me(), "INVALID_API_KEY", 401);
    } finally {
      await client.close();
    }
  });

  it("missing credentials are refused with HTTP 401", async () => {
    const res = await rawRequest(server(), undefined, "GET", "/users/me");
    expect(res.status).toBe(401);
    expect(res.body.result).toBe("error");
  });

  it("a deactivated account is USER_DEACTIVATED with HTTP 401", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const gus = sandbox.realm.users.get(sandbox.user("gus").userId)!;
    gus.isActive = false;
    try {
      await expectApiError(server().client("guest").users.me(), "USER_DEACTIVATED", 401);
    } finally {
      gus.isActive = true;
    }
  });

  it("a deactivated organization is REALM_DEACTIVATED with HTTP 401, with or without credentials", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    sandbox.realm.deactivated = true;
    sandbox.realm.settings.enableSpectatorAccess = true;
    try {
      await expectApiError(server().client("member").users.me(), "REALM_DEACTIVATED", 401);
      const anonymous = await rawRequest(server(), undefined, "GET", "/users");
      expect(anonymous.status).toBe(401);
      expect(anonymous.body.code).toBe("REALM_DEACTIVATED");
    } finally {
      sandbox.realm.deactivated = false;
      sandbox.realm.settings.enableSpectatorAccess = false;
    }
  });

  it("a user whose real email is hidden logs in with the placeholder API email too", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.realm.users.get(sandbox.user("mia").userId)!;
    mia.settings.email_address_visibility = 4;
    const client = createClient({
      site: server().site,
      email: `user${mia.userId}@${sandbox.realm.settings.host}`,
      apiKey: mia.apiKey,
    });
    try {
      expect((await client.users.me()).user_id).toBe(mia.userId);
    } finally {
      mia.settings.email_address_visibility = 1;
      await client.close();
    }
  });
});

describeContract("POST /fetch_api_key (auth.fetchApiKey)", (server) => {
  const anonymousClient = () => createClient({ site: server().site, email: "", apiKey: "" });

  it("the right password gives api_key, email and user_id", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.user("mia");
    const client = anonymousClient();
    try {
      const res = await client.auth.fetchApiKey({ username: mia.email, password: mia.password! });
      expect(res).toMatchObject({ api_key: mia.apiKey, email: mia.email, user_id: mia.userId });
    } finally {
      await client.close();
    }
  });

  it("wrong password, unknown user and deactivated user are refused alike", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.user("mia");
    const gus = sandbox.user("gus");
    const client = anonymousClient();
    sandbox.realm.users.get(gus.userId)!.isActive = false;
    try {
      const errors: ApiError[] = [];
      for (const [username, password] of [
        [mia.email, "not-the-password"],
        ["nobody@nowhere.test", "whatever"],
        [gus.email, gus.password!],
        [sandbox.bot.email, ""],
      ] as const) {
        errors.push(
          await expectApiError(
            client.auth.fetchApiKey({ username, password }),
            "AUTHENTICATION_FAILED",
            401,
          ),
        );
      }
      // Same code, status and message: nothing tells which part was wrong.
      expect(new Set(errors.map((e) => `${e.code} ${e.status} ${e.msg}`)).size).toBe(1);
      for (const e of errors) expect(e.message).not.toContain("not-the-password");
    } finally {
      sandbox.realm.users.get(gus.userId)!.isActive = true;
      await client.close();
    }
  });

  it("missing username or password is REQUEST_VARIABLE_MISSING", async () => {
    const res = await rawRequest(server(), undefined, "POST", "/fetch_api_key", {
      username: "a@b.c",
    });
    expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "password" });
  });

  it("loginWithPassword returns a client that works as the user", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const max = sandbox.user("max");
    const client = await loginWithPassword({
      site: server().site,
      username: max.email,
      password: max.password!,
    });
    try {
      expect(client.email).toBe(max.email);
      expect((await client.users.me()).user_id).toBe(max.userId);
    } finally {
      await client.close();
    }
  });

  it("loginWithPassword fails with the server's error for a wrong password", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    await expectApiError(
      loginWithPassword({
        site: server().site,
        username: sandbox.user("max").email,
        password: "wrong",
        retry: { maxAttempts: 1 },
      }),
      "AUTHENTICATION_FAILED",
      401,
    );
  });
});
