// Behaviours of user names and push registration ported from the server's zerver/tests/test_users.py,
// test_signup.py (check_full_name) and test_push_notifications.py (human_users_only).
import { expect, it } from "vitest";
import { describeContract, needSandbox, needWritable, rawRequest } from "./servers.js";

describeContract(
  "full names (upstream test_users.py, zerver/lib/users.py check_full_name)",
  (server) => {
    let n = 0;
    const create = (full_name: string) =>
      rawRequest(server(), "owner", "POST", "/users", {
        email: `new${++n}@sandbox.test`,
        password: "secret-password",
        full_name,
      });
    const rename = async (full_name: string) => {
      const mia = server().sandbox!.user("mia");
      return rawRequest(server(), "owner", "PATCH", `/users/${encodeURIComponent(mia.email)}`, {
        full_name,
      });
    };

    // upstream: test_users.py AdminCreateUserTest.test_create_user_backend (a plain name)
    it("accepts a plain name", async (ctx) => {
      needSandbox(ctx, server());
      needWritable(ctx, server());
      expect((await create("Romeo Montague")).status).toBe(200);
    });

    // upstream: test_users.py UserProfileTest.test_change_full_name_to_invalid_name / test_signup.py test_signup_invalid_name ("Invalid characters in name!")
    it("refuses names with characters the server bans", async (ctx) => {
      needSandbox(ctx, server());
      for (const name of [
        "Bad*Name",
        "Bad`Name",
        "Bad\\Name",
        "Bad>Name",
        'Bad"Name',
        "Bad@Name",
        "Bad\u0007Name",
      ]) {
        const res = await create(name);
        expect(res.status, name).toBe(400);
        expect(res.body, name).toMatchObject({
          code: "BAD_REQUEST",
          msg: "Invalid characters in name!",
        });
      }
    });

    // upstream: test_users.py UserProfileTest.test_change_full_name_to_mention_id_format ("Invalid format!": |<digits> at the end)
    it("refuses a name ending in |<digits>", async (ctx) => {
      needSandbox(ctx, server());
      const res = await create("Othello|15");
      expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Invalid format!" });
      expect((await rename("Mia|4")).body).toMatchObject({ msg: "Invalid format!" });
    });

    // upstream: test_users.py UserProfileTest.test_change_full_name_too_long / too short
    it("refuses names too long or blank", async (ctx) => {
      needSandbox(ctx, server());
      expect((await create("x".repeat(101))).body).toMatchObject({ msg: "Name too long!" });
      expect((await create("   ")).body).toMatchObject({ msg: "Name too short!" });
      expect((await rename("")).body).toMatchObject({ msg: "Name too short!" });
    });

    // upstream: test_users.py UserProfileTest.test_change_full_name (a name with | but no trailing ID is fine)
    it("accepts | inside a name when no ID follows it", async (ctx) => {
      needSandbox(ctx, server());
      needWritable(ctx, server());
      expect((await create("A|B team")).status).toBe(200);
    });
  },
);

describeContract("push registration (upstream test_push_notifications.py)", (server) => {
  // upstream: test_push_notifications.py (push device endpoints are @human_users_only, zerver/decorator.py)
  it("refuses push token registration from a bot", async (ctx) => {
    needSandbox(ctx, server());
    const res = await rawRequest(server(), "bot", "POST", "/users/me/native_device_token", {
      token: "abcdef123",
      token_kind: "apns",
      appid: "org.zulip.Zulip",
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "BAD_REQUEST",
      msg: "This endpoint does not accept bot requests.",
    });
  });

  // upstream: test_push_notifications.py (human_users_only on the test notification)
  it("refuses a test notification from a bot", async (ctx) => {
    needSandbox(ctx, server());
    const res = await rawRequest(
      server(),
      "bot",
      "POST",
      "/mobile_push/e2ee/test_notification",
      {},
    );
    expect(res.body).toMatchObject({ msg: "This endpoint does not accept bot requests." });
  });
});
