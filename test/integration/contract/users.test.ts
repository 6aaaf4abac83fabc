// Behaviours of GET /users and GET /users/me ported from the server's zerver/tests/test_users.py (views/users.py).
import { expect, it } from "vitest";
import { describeContract, needSandbox, rawRequest } from "./servers.js";

describeContract("GET /users, GET /users/me (upstream test_users.py)", (server) => {
  // upstream: test_users.py GetProfileTest.test_get_user_profile (own profile fields)
  it("answers the own profile with its fields", async () => {
    const res = await rawRequest(server(), "member", "GET", "/users/me", {});
    expect(res.status).toBe(200);
    for (const key of [
      "user_id",
      "email",
      "full_name",
      "is_bot",
      "is_admin",
      "is_owner",
      "is_guest",
      "role",
      "avatar_url",
      "avatar_version",
      "delivery_email",
    ])
      expect(res.body, key).toHaveProperty(key);
    expect(res.body.is_bot).toBe(false);
  });

  // upstream: test_users.py GetProfileTest.test_get_user_profile (a bot sees itself as a bot)
  it("shows a bot its is_bot", async () => {
    const res = await rawRequest(server(), "bot", "GET", "/users/me", {});
    expect(res.body.is_bot).toBe(true);
  });

  // upstream: test_users.py GetProfileTest.test_get_user_profile (avatar_url is versioned)
  it("versions the avatar URL", async (ctx) => {
    needSandbox(ctx, server());
    const res = await rawRequest(server(), "admin", "GET", "/users/me", {});
    expect(String(res.body.avatar_url)).toMatch(/version=\d+/);
  });

  // upstream: test_users.py GetUsersTest / ActivateTest.test_api (members with user_id, role, is_active)
  it("lists members with user_id, full_name, role and is_active", async (ctx) => {
    needSandbox(ctx, server());
    const res = await rawRequest(server(), "member", "GET", "/users", {});
    const members = res.body.members as Record<string, unknown>[];
    const mia = members.find((m) => m.user_id === server().sandbox!.user("mia").userId)!;
    expect(mia).toMatchObject({
      full_name: "Mia Member",
      role: 400,
      is_active: true,
      is_bot: false,
    });
  });

  // upstream: test_users.py GetUsersTest (bots carry bot_type and bot_owner_id)
  it("shows bots with bot_type and bot_owner_id", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const res = await rawRequest(server(), "member", "GET", "/users", {});
    const bot = (res.body.members as Record<string, unknown>[]).find(
      (m) => m.user_id === sandbox.bot.userId,
    )!;
    expect(bot).toMatchObject({
      is_bot: true,
      bot_type: 1,
      bot_owner_id: sandbox.user("olivia").userId,
    });
  });

  // upstream: test_users.py GetUsersTest (system bots are not members; they are cross-realm bots)
  it("leaves system bots out of the member list", async () => {
    const res = await rawRequest(server(), "member", "GET", "/users", {});
    const members = res.body.members as { full_name: string }[];
    expect(members.some((m) => m.full_name === "Notification Bot")).toBe(false);
  });

  // upstream: test_users.py UserProfileTest (the date_joined is an ISO 8601 string)
  it("gives date_joined as ISO 8601", async () => {
    const res = await rawRequest(server(), "member", "GET", "/users", {});
    const first = (res.body.members as { date_joined: string }[])[0]!;
    expect(Number.isNaN(Date.parse(first.date_joined))).toBe(false);
  });
});
