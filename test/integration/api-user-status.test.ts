// Contract: POST /users/{user_id}/status (users.setStatus): administrators only, text and emoji rules, events.
import { expect, it } from "vitest";
import { describeContract, eventsDuring, expectApiError, needSandbox } from "./contract/servers.js";
import { userStatuses } from "../../src/sandbox/status.js";

describeContract("POST /users/{user_id}/status (users.setStatus)", (server) => {
  const idOf = (handle: string) => server().sandbox!.user(handle).userId;
  const statusOf = (handle: string) => userStatuses(server().sandbox!.realm).get(idOf(handle));

  it("sets text and emoji; everyone gets a user_status event", async (ctx) => {
    needSandbox(ctx, server());
    const events = await eventsDuring(server().client("member"), ["user_status"], () =>
      server()
        .client("admin")
        .users.setStatus({ user_id: idOf("mia"), status_text: "on vacation", emoji_name: "car" }),
    );
    expect(events).toEqual([
      expect.objectContaining({
        type: "user_status",
        user_id: idOf("mia"),
        status_text: "on vacation",
        emoji_name: "car",
        emoji_code: "1f697",
        reaction_type: "unicode_emoji",
      }),
    ]);
    expect(statusOf("mia")).toMatchObject({ status_text: "on vacation", emoji_code: "1f697" });
  });

  it("an empty status_text (and emoji_name) clears the status", async (ctx) => {
    needSandbox(ctx, server());
    const admin = server().client("admin");
    await admin.users.setStatus({ user_id: idOf("max"), status_text: "busy" });
    expect(statusOf("max")?.status_text).toBe("busy");
    await admin.users.setStatus({ user_id: idOf("max"), status_text: "" });
    expect(statusOf("max")).toBeUndefined();
  });

  it("administrators only: members, moderators and guests are refused", async (ctx) => {
    needSandbox(ctx, server());
    for (const role of ["moderator", "member", "guest"] as const) {
      await expectApiError(
        server()
          .client(role)
          .users.setStatus({ user_id: idOf("gus"), status_text: "hi" }),
        "BAD_REQUEST",
        400,
      );
    }
    expect(statusOf("gus")).toBeUndefined();
  });

  it("refuses each invalid request with BAD_REQUEST", async (ctx) => {
    needSandbox(ctx, server());
    const admin = server().client("admin");
    const user_id = idOf("gus");
    const cases: [Parameters<typeof admin.users.setStatus>[0], RegExp][] = [
      [{ user_id }, /did not pass any new values/],
      [{ user_id, status_text: "x".repeat(61) }, /too long \(limit: 60/],
      // The server checks "no new values" first: a code or type alone is none.
      [{ user_id, emoji_code: "1f697" }, /did not pass any new values/],
      [{ user_id, status_text: "x", reaction_type: "unicode_emoji" }, /must pass emoji_name/],
      [{ user_id, emoji_name: "no_such_emoji" }, /does not exist/],
      [{ user_id, emoji_name: "smile", emoji_code: "1f697" }, /Invalid emoji name/],
      [{ user_id, emoji_name: "car", emoji_code: "zzz" }, /Invalid emoji code/],
      [
        { user_id, emoji_name: "x", emoji_code: "999", reaction_type: "realm_emoji" },
        /Invalid custom emoji\./,
      ],
      [
        { user_id, emoji_name: "old_logo", emoji_code: "2", reaction_type: "realm_emoji" },
        /deactivated/,
      ],
      [{ user_id: 99_999, status_text: "hi" }, /No such user/],
    ];
    for (const [params, msg] of cases) {
      const error = await expectApiError(admin.users.setStatus(params), "BAD_REQUEST", 400);
      expect(error.msg).toMatch(msg);
    }
    expect(statusOf("gus")).toBeUndefined();
  });

  it("accepts exactly 60 characters, custom and extra emoji", async (ctx) => {
    needSandbox(ctx, server());
    const admin = server().client("admin");
    const user_id = idOf("gus");
    await admin.users.setStatus({ user_id, status_text: "é".repeat(60) });
    await admin.users.setStatus({ user_id, emoji_name: "green_tick" });
    expect(statusOf("gus")).toMatchObject({ emoji_code: "3", reaction_type: "realm_emoji" });
    await admin.users.setStatus({
      user_id,
      emoji_name: "zulip",
      emoji_code: "zulip",
      reaction_type: "service_extra_emoji",
    });
    expect(statusOf("gus")).toMatchObject({ reaction_type: "service_extra_emoji" });
    await admin.users.setStatus({ user_id, status_text: "", emoji_name: "" });
    expect(statusOf("gus")).toBeUndefined();
  });
});
