// Contract: GET /users/{user_id} and GET /users/{email}, one user as the list shows them (sandbox, and a real server when configured).
import { expect, it } from "vitest";
import { describeContract, expectApiError, need, needSandbox } from "./contract/servers.js";

describeContract("GET /users/{user_id} (users.get)", (server) => {
  it("answers one user as the list shows them", async (ctx) => {
    need(ctx, server(), "member", "moderator");
    const client = server().client("member");
    const { members } = await client.users.list();
    const target = members.find((m) => m.email === server().account("moderator")!.email)!;
    const { user } = await client.users.get({ user_id: target.user_id });
    expect(user).toMatchObject({
      user_id: target.user_id,
      email: target.email,
      full_name: target.full_name,
      role: target.role,
      is_active: true,
      is_bot: false,
    });
  });

  it("says No such user for an ID that names no one", async (ctx) => {
    need(ctx, server(), "member");
    const error = await expectApiError(
      server().client("member").users.get({ user_id: 2_000_000_000 }),
      "BAD_REQUEST",
      400,
    );
    expect(error.msg).toBe("No such user");
  });
});

describeContract("GET /users/{email} (users.getByEmail)", (server) => {
  it("finds a user by their email, and anyone by the placeholder user<id>@<host>", async (ctx) => {
    need(ctx, server(), "member", "moderator");
    const client = server().client("member");
    const email = server().account("moderator")!.email;
    const { user } = await client.users.getByEmail({ email });
    expect(user.email).toBe(email);
    const sandbox = needSandbox(ctx, server());
    const placeholder = `user${user.user_id}@${sandbox.realm.settings.host}`;
    expect((await client.users.getByEmail({ email: placeholder })).user.user_id).toBe(user.user_id);
    await expectApiError(
      client.users.getByEmail({ email: "nobody@example.invalid" }),
      "BAD_REQUEST",
      400,
    );
  });

  it("finds a user by the new email after an email change, not the old one", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    need(ctx, server(), "member");
    const max = sandbox.realm.users.get(sandbox.user("max").userId)!;
    const old = max.email;
    max.email = "maxwell@example.com";
    try {
      const client = server().client("member");
      expect((await client.users.getByEmail({ email: "MAXWELL@example.com" })).user.user_id).toBe(
        max.userId,
      );
      await expectApiError(client.users.getByEmail({ email: old }), "BAD_REQUEST", 400);
    } finally {
      max.email = old;
    }
  });
});
