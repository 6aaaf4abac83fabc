// Contract: PATCH /users/{email} (users.updateByEmail): roles, owners, emails, profile data, lookups.
import { expect, it } from "vitest";
import {
  describeContract,
  eventsDuring,
  expectApiError,
  needSandbox,
  rawRequest,
} from "./contract/servers.js";

describeContract("PATCH /users/{email} (users.updateByEmail)", (server) => {
  const userOf = (handle: string) => {
    const sandbox = server().sandbox!;
    return sandbox.realm.users.get(sandbox.user(handle).userId)!;
  };

  it("an administrator renames a member and everyone gets a realm_user update", async (ctx) => {
    needSandbox(ctx, server());
    const mia = userOf("mia");
    const events = await eventsDuring(server().client("moderator"), ["realm_user"], () =>
      server().client("admin").users.updateByEmail({ email: mia.email, full_name: "Mia M." }),
    );
    expect(mia.fullName).toBe("Mia M.");
    expect(events).toContainEqual(
      expect.objectContaining({
        op: "update",
        person: { user_id: mia.userId, full_name: "Mia M." },
      }),
    );
  });

  it("administrator-only: members, moderators and guests get BAD_REQUEST", async (ctx) => {
    needSandbox(ctx, server());
    const mia = userOf("mia");
    for (const role of ["moderator", "member", "guest"] as const) {
      await expectApiError(
        server().client(role).users.updateByEmail({ email: mia.email, full_name: "Nope" }),
        "BAD_REQUEST",
        400,
      );
    }
    expect(mia.fullName).not.toBe("Nope");
  });

  it("finds the user by the placeholder address too, and by real email only when visible", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const max = userOf("max");
    const placeholder = `user${max.userId}@${sandbox.realm.settings.host}`;
    await server().client("admin").users.updateByEmail({ email: placeholder, full_name: "Max P." });
    expect(max.fullName).toBe("Max P.");
    max.settings.email_address_visibility = 4; // nobody
    try {
      await expectApiError(
        server().client("admin").users.updateByEmail({ email: max.email, full_name: "Hidden" }),
        "BAD_REQUEST",
      );
      await server()
        .client("admin")
        .users.updateByEmail({ email: placeholder, full_name: "Max Q." });
      expect(max.fullName).toBe("Max Q.");
    } finally {
      max.settings.email_address_visibility = 1;
    }
  });

  it("an unknown user is BAD_REQUEST", async (ctx) => {
    needSandbox(ctx, server());
    await expectApiError(
      server()
        .client("admin")
        .users.updateByEmail({ email: "nobody@nowhere.test", full_name: "X" }),
      "BAD_REQUEST",
    );
  });

  it("only owners add the owner role; administrators may not", async (ctx) => {
    needSandbox(ctx, server());
    const max = userOf("max");
    await expectApiError(
      server().client("admin").users.updateByEmail({ email: max.email, role: 100 }),
      "BAD_REQUEST",
    );
    expect(max.role).toBe(300);
    await server().client("owner").users.updateByEmail({ email: max.email, role: 100 });
    expect(max.role).toBe(100);
    // Administrators may not touch an owner at all, nor remove the role.
    await expectApiError(
      server().client("admin").users.updateByEmail({ email: max.email, role: 300 }),
      "BAD_REQUEST",
    );
    await server().client("owner").users.updateByEmail({ email: max.email, role: 300 });
    expect(max.role).toBe(300);
  });

  it("the only owner keeps the owner role", async (ctx) => {
    needSandbox(ctx, server());
    const olivia = userOf("olivia");
    const error = await expectApiError(
      server().client("owner").users.updateByEmail({ email: olivia.email, role: 200 }),
      "BAD_REQUEST",
    );
    expect(error.msg).toMatch(/only organization owner/);
    expect(olivia.role).toBe(100);
  });

  it("guests cannot become administrators", async (ctx) => {
    needSandbox(ctx, server());
    const gus = userOf("gus");
    const error = await expectApiError(
      server().client("owner").users.updateByEmail({ email: gus.email, role: 200 }),
      "BAD_REQUEST",
    );
    expect(error.msg).toMatch(/Guests cannot be organization administrators/);
    expect(gus.role).toBe(600);
    await server().client("admin").users.updateByEmail({ email: gus.email, role: 400 });
    expect(gus.role).toBe(400);
    await server().client("admin").users.updateByEmail({ email: gus.email, role: 600 });
  });

  it("new_email needs an owner with can_change_user_emails", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = userOf("mia");
    const old = mia.email;
    await expectApiError(
      server().client("admin").users.updateByEmail({ email: old, new_email: "m@example.com" }),
      "BAD_REQUEST",
    );
    const olivia = userOf("olivia");
    olivia.permissions.delete("can_change_user_emails");
    try {
      await expectApiError(
        server().client("owner").users.updateByEmail({ email: old, new_email: "m@example.com" }),
        "BAD_REQUEST",
      );
    } finally {
      olivia.permissions.add("can_change_user_emails");
    }
    await expectApiError(
      server()
        .client("owner")
        .users.updateByEmail({ email: old, new_email: sandbox.user("adam").email }),
      "BAD_REQUEST",
    );
    await server().client("owner").users.updateByEmail({ email: old, new_email: "m@example.com" });
    expect(mia.email).toBe("m@example.com");
    await server().client("owner").users.updateByEmail({ email: "m@example.com", new_email: old });
    expect(mia.email).toBe(old);
  });

  it("profile_data sets custom fields (checked by type) and the empty string clears", async (ctx) => {
    needSandbox(ctx, server());
    const mia = userOf("mia");
    const admin = server().client("admin");
    await admin.users.updateByEmail({
      email: mia.email,
      profile_data: [
        { id: 1, value: "+1-555-0199" },
        { id: 4, value: "" },
      ],
    });
    const { members } = await admin.users.list({
      user_ids: [mia.userId],
      include_custom_profile_fields: true,
    });
    expect(members[0]!.profile_data!["1"]!.value).toBe("+1-555-0199");
    expect(members[0]!.profile_data!["4"]).toBeUndefined();
    await expectApiError(
      admin.users.updateByEmail({ email: mia.email, profile_data: [{ id: 99, value: "x" }] }),
      "BAD_REQUEST",
    );
    await expectApiError(
      admin.users.updateByEmail({ email: mia.email, profile_data: [{ id: 3, value: "soon" }] }),
      "BAD_REQUEST",
    );
  });

  it("the server refuses a role outside 100, 200, 300, 400, 600 (the client does too)", async (ctx) => {
    needSandbox(ctx, server());
    const mia = userOf("mia");
    const res = await rawRequest(server(), "owner", "PATCH", `/users/${mia.email}`, {
      role: "500",
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ result: "error", code: "BAD_REQUEST" });
    await expect(
      server()
        .client("owner")
        .users.updateByEmail({ email: mia.email, role: 500 as 400 }),
    ).rejects.toThrow(/role/);
  });
});
