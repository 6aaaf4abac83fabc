// Behaviours of user statuses ported from the server's zerver/tests/test_user_status.py (views/presence.py update_user_status_*).
import { expect, it } from "vitest";
import { describeContract, eventsDuring, needSandbox, rawRequest } from "./servers.js";

describeContract("POST /users/{user_id}/status (upstream test_user_status.py)", (server) => {
  const setFor = (
    handle: string,
    fields: Record<string, string>,
    role: "admin" | "member" = "admin",
  ) =>
    rawRequest(
      server(),
      role,
      "POST",
      `/users/${server().sandbox!.user(handle).userId}/status`,
      fields,
    );

  // upstream: test_user_status.py UserStatusTest.test_endpoints ("Client did not pass any new values.")
  it("refuses an update with no new values", async (ctx) => {
    needSandbox(ctx, server());
    expect((await setFor("mia", {})).body).toMatchObject({
      code: "BAD_REQUEST",
      msg: "Client did not pass any new values.",
    });
  });

  // upstream: test_user_status.py UserStatusTest.test_endpoints (emoji_code without emoji_name and no text: still no new values)
  it("counts an emoji code without a name as no new values", async (ctx) => {
    needSandbox(ctx, server());
    const res = await setFor("mia", { emoji_code: "1f697" });
    expect(res.body).toMatchObject({ msg: "Client did not pass any new values." });
  });

  // upstream: test_user_status.py UserStatusTest.test_endpoints ("Client must pass emoji_name if they pass either emoji_code or reaction_type.")
  it("refuses an emoji code without a name beside a text", async (ctx) => {
    needSandbox(ctx, server());
    const res = await setFor("mia", { status_text: "x", emoji_code: "1f697" });
    expect(res.body).toMatchObject({
      msg: "Client must pass emoji_name if they pass either emoji_code or reaction_type.",
    });
  });

  // upstream: test_user_status.py UserStatusTest.test_endpoints ("status_text is too long (limit: 60 characters)")
  it("refuses a status text over 60 characters", async (ctx) => {
    needSandbox(ctx, server());
    const res = await setFor("mia", { status_text: "x".repeat(61) });
    expect(res.body).toMatchObject({ msg: "status_text is too long (limit: 60 characters)" });
  });

  // upstream: test_user_status.py UserStatusTest.test_endpoints (unknown emoji name)
  it("refuses an unknown emoji name", async (ctx) => {
    needSandbox(ctx, server());
    const res = await setFor("mia", { emoji_name: "invalid" });
    expect(res.body).toMatchObject({ msg: "Emoji 'invalid' does not exist" });
  });

  // upstream: test_user_status.py UserStatusTest.test_endpoints (text and emoji set, user_status event with the changed fields)
  it("sets text and emoji and announces the changed fields", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const events = await eventsDuring(server().client(), ["user_status"], () =>
      setFor("mia", { status_text: "  on vacation  ", emoji_name: "car" }),
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: "user_status",
        user_id: sandbox.user("mia").userId,
        status_text: "on vacation",
        emoji_name: "car",
        emoji_code: "1f697",
        reaction_type: "unicode_emoji",
      }),
    ]);
  });

  // upstream: test_user_status.py UserStatusTest.test_endpoints (an empty emoji_name clears the emoji)
  it("clears the emoji with an empty name", async (ctx) => {
    needSandbox(ctx, server());
    const events = await eventsDuring(server().client(), ["user_status"], () =>
      setFor("mia", { emoji_name: "" }),
    );
    expect(events[0]).toMatchObject({ emoji_name: "", emoji_code: "" });
  });

  // upstream: test_user_status.py UserStatusTest.test_update_user_status_for_other_user (administrators only)
  it("refuses a member setting another user's status", async (ctx) => {
    needSandbox(ctx, server());
    const res = await setFor("adam", { status_text: "hi" }, "member");
    expect(res.body).toMatchObject({
      code: "BAD_REQUEST",
      msg: "Must be an organization administrator",
    });
  });

  // upstream: test_user_status.py UserStatusTest.test_update_user_status_for_other_user (an unknown user)
  it("refuses an unknown user", async () => {
    const res = await rawRequest(server(), "admin", "POST", "/users/999999/status", {
      status_text: "hi",
    });
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "No such user" });
  });
});
