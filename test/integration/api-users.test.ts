// Contract: GET /users, GET /users/me and POST /users, against the sandbox (and a real server when configured).
import { expect, it } from "vitest";
import { InvalidArgumentError } from "topicbot/client";
import {
  describeContract,
  eventsDuring,
  expectApiError,
  need,
  needSandbox,
  needWritable,
  rawRequest,
} from "./contract/servers.js";

describeContract("GET /users/me (users.me)", (server) => {
  it("answers the requester's own profile at the top level", async (ctx) => {
    need(ctx, server(), "member");
    const me = await server().client("member").users.me();
    expect(me.result).toBe("success");
    expect(me.email).toBe(server().account("member")!.email);
    expect(me.delivery_email).toBe(server().account("member")!.email);
    expect(me.is_bot).toBe(false);
    expect(me.role).toBe(400);
    expect(typeof me.avatar_url).toBe("string");
    expect(Number.isNaN(Date.parse(me.date_joined))).toBe(false);
    expect(me.profile_data).toBeTypeOf("object");
  });

  it("gives bots no profile_data", async (ctx) => {
    need(ctx, server(), "bot");
    const me = await server().client("bot").users.me();
    expect(me.is_bot).toBe(true);
    expect(me.profile_data).toBeUndefined();
  });
});

describeContract("GET /users (users.list)", (server) => {
  it("lists every user with the user object's fields; date_joined is ISO 8601", async (ctx) => {
    need(ctx, server(), "member");
    const { members } = await server().client("member").users.list();
    expect(members.length).toBeGreaterThan(0);
    for (const m of members) {
      expect(m.date_joined).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
      expect(m.is_owner ? m.is_admin : true).toBe(true);
      expect(m.profile_data).toBeUndefined();
    }
  });

  it("narrows to user_ids", async (ctx) => {
    need(ctx, server(), "member", "owner");
    const owner = await server().client("owner").users.me();
    const me = await server().client("member").users.me();
    const { members } = await server()
      .client("member")
      .users.list({ user_ids: [owner.user_id, me.user_id] });
    expect(members.map((m) => m.user_id).sort()).toEqual([owner.user_id, me.user_id].sort());
  });

  it("shows bots with their type and owner, humans with a null bot_type", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const { members } = await server().client("member").users.list();
    const bot = members.find((m) => m.user_id === sandbox.bot.userId)!;
    expect(bot).toMatchObject({
      is_bot: true,
      bot_type: 1,
      bot_owner_id: sandbox.user("olivia").userId,
      delivery_email: sandbox.bot.email,
    });
    const human = members.find((m) => m.user_id === sandbox.user("mia").userId)!;
    expect(human.bot_type).toBeNull();
    expect(human).not.toHaveProperty("bot_owner_id");
  });

  it("client_extavatar: null for external avatars the client can compute, a URL for uploads", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const client = server().client("member");
    const byId = async (extavatar?: boolean) =>
      new Map(
        (await client.users.list({ client_extavatar: extavatar })).members.map((m) => [
          m.user_id,
          m,
        ]),
      );
    const computed = await byId();
    expect(computed.get(sandbox.user("mia").userId)!.avatar_url).toBeNull();
    expect(computed.get(sandbox.user("adam").userId)!.avatar_url).toMatch(/user_avatars/);
    const full = await byId(false);
    expect(full.get(sandbox.user("mia").userId)!.avatar_url).toMatch(/^https:\/\//);
  });

  it("include_custom_profile_fields adds profile_data, with rendered_value for Markdown fields", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const { members } = await server()
      .client("member")
      .users.list({ include_custom_profile_fields: true });
    const olivia = members.find((m) => m.user_id === sandbox.user("olivia").userId)!;
    expect(olivia.profile_data!["2"]).toEqual({
      value: "Runs **this** sandbox",
      rendered_value: expect.stringContaining("<strong>this</strong>"),
    });
    const mia = members.find((m) => m.user_id === sandbox.user("mia").userId)!;
    expect(mia.profile_data!["3"]).toEqual({ value: "1990-04-01" });
    const bot = members.find((m) => m.is_bot)!;
    expect(bot.profile_data).toBeUndefined();
  });

  it("refuses a request without credentials unless the realm has public access", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const refused = await rawRequest(server(), undefined, "GET", "/users");
    expect(refused.status).toBe(401);
    expect(refused.body.result).toBe("error");
    sandbox.realm.settings.enableSpectatorAccess = true;
    try {
      const open = await rawRequest(server(), undefined, "GET", "/users");
      expect(open.status).toBe(200);
      const members = open.body.members as { delivery_email: string | null; is_bot: boolean }[];
      expect(members.length).toBe(sandbox.users.length);
    } finally {
      sandbox.realm.settings.enableSpectatorAccess = false;
    }
  });

  it("leaves system bots out; the registration lists them in cross_realm_bots instead", async (ctx) => {
    need(ctx, server(), "member");
    const client = server().client("member");
    const { members } = await client.users.list();
    const state = (await client.events.register({
      event_types: ["message"],
      fetch_event_types: ["realm_user"],
    })) as unknown as {
      realm_users: { user_id: number }[];
      cross_realm_bots: {
        user_id: number;
        full_name: string;
        is_bot: boolean;
        is_system_bot: boolean;
      }[];
    };
    expect(state.cross_realm_bots).toContainEqual(
      expect.objectContaining({ full_name: "Notification Bot", is_bot: true, is_system_bot: true }),
    );
    const systemIds = state.cross_realm_bots.map((b) => b.user_id);
    expect(members.filter((m) => systemIds.includes(m.user_id))).toEqual([]);
    expect(state.realm_users.filter((u) => systemIds.includes(u.user_id))).toEqual([]);
    expect(new Set(state.realm_users.map((u) => u.user_id))).toEqual(
      new Set(members.filter((m) => m.is_active).map((m) => m.user_id)),
    );
    const asked = await client.users.list({ user_ids: systemIds });
    expect(asked.members).toEqual([]);
  });

  it("lists the Notification Bot nowhere after it has posted a report notice", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    sandbox.realm.settings.moderationRequestChannel = "sandbox";
    try {
      const { id } = await server()
        .client("member")
        .messages.send({ type: "channel", to: "sandbox", topic: "spam", content: "buy now" });
      await server().client("admin").messages.report({ message_id: id, report_type: "spam" });
      const notice = (
        await server()
          .client("admin")
          .messages.list({
            anchor: "newest",
            num_before: 1,
            num_after: 0,
            narrow: [{ operator: "channel", operand: "sandbox" }],
          })
      ).messages[0]!;
      expect(notice.sender_full_name).toBe("Notification Bot");
      const { members } = await server().client("admin").users.list();
      expect(members.map((m) => m.user_id)).not.toContain(notice.sender_id);
    } finally {
      sandbox.realm.settings.moderationRequestChannel = null;
    }
  });

  it("the client refuses user_ids that are not integers before sending", async (ctx) => {
    need(ctx, server(), "member");
    await expect(
      server()
        .client("member")
        .users.list({ user_ids: ["x" as unknown as number] }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});

describeContract("Email address visibility", (server) => {
  it("hides the real email behind user<id>@<realm_host> from those who may not see it", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.realm.users.get(sandbox.user("mia").userId)!;
    const host = sandbox.realm.settings.host;
    mia.settings.email_address_visibility = 3; // administrators only
    try {
      const asMember = (
        await server()
          .client("moderator")
          .users.list({ user_ids: [mia.userId] })
      ).members[0]!;
      expect(asMember.delivery_email).toBeNull();
      expect(asMember.email).toBe(`user${mia.userId}@${host}`);
      const asAdmin = (
        await server()
          .client("admin")
          .users.list({ user_ids: [mia.userId] })
      ).members[0]!;
      expect(asAdmin.delivery_email).toBe(mia.email);
      expect(asAdmin.email).toBe(`user${mia.userId}@${host}`);
      const self = await server().client("member").users.me();
      expect(self.delivery_email).toBe(mia.email);
      expect(self.email).toBe(`user${mia.userId}@${host}`);
      // Without client_extavatar help: the client cannot compute the avatar, so the server does.
      expect(asMember.avatar_url).toMatch(/^https:\/\//);
    } finally {
      mia.settings.email_address_visibility = 1;
    }
  });

  it("each policy value: members, moderators, nobody", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const mia = sandbox.realm.users.get(sandbox.user("mia").userId)!;
    const seen = async (role: "guest" | "member" | "moderator" | "admin" | "owner") =>
      (
        await server()
          .client(role)
          .users.list({ user_ids: [mia.userId] })
      ).members[0]!.delivery_email;
    try {
      mia.settings.email_address_visibility = 2;
      expect(await seen("guest")).toBeNull();
      expect(await seen("owner")).toBe(mia.email);
      mia.settings.email_address_visibility = 5;
      expect(await seen("moderator")).toBe(mia.email);
      mia.settings.email_address_visibility = 4;
      expect(await seen("owner")).toBeNull();
    } finally {
      mia.settings.email_address_visibility = 1;
    }
  });
});

describeContract("POST /users (users.create)", (server) => {
  it("creates a user and announces it with a realm_user add event", async (ctx) => {
    need(ctx, server(), "owner", "member");
    needWritable(ctx, server());
    const email = `new-${Date.now()}@example.com`;
    let userId = 0;
    const events = await eventsDuring(server().client("member"), ["realm_user"], async () => {
      ({ user_id: userId } = await server()
        .client("owner")
        .users.create({ email, password: "s3cret-pass", full_name: "New Person" }));
    });
    expect(userId).toBeGreaterThan(0);
    const add = events.find((e) => e.op === "add")!;
    expect(add).toMatchObject({
      type: "realm_user",
      op: "add",
      person: { user_id: userId, full_name: "New Person", role: 400, is_active: true },
    });
    const { members } = await server()
      .client("member")
      .users.list({ user_ids: [userId] });
    expect(members[0]).toMatchObject({ delivery_email: email, full_name: "New Person" });
  });

  it("refuses an email already in use", async (ctx) => {
    need(ctx, server(), "owner", "member");
    const taken = server().account("member")!.email;
    const error = await expectApiError(
      server()
        .client("owner")
        .users.create({ email: taken, password: "x1y2z3w4", full_name: "Dup" }),
      "BAD_REQUEST",
      400,
    );
    expect(error.msg).toMatch(/already in use/);
  });

  it("refuses administrators without can_create_users, and everyone below administrator", async (ctx) => {
    need(ctx, server(), "admin", "moderator", "member", "guest");
    for (const role of ["admin", "moderator", "member", "guest"] as const) {
      await expectApiError(
        server()
          .client(role)
          .users.create({
            email: `no-${role}@example.com`,
            password: "pw-123456",
            full_name: "No",
          }),
        "BAD_REQUEST",
      );
    }
  });

  it("each required field missing gives REQUEST_VARIABLE_MISSING naming it", async (ctx) => {
    need(ctx, server(), "owner");
    const all = { email: "req@example.com", password: "pw-123456", full_name: "Req" };
    for (const name of ["email", "password", "full_name"] as const) {
      const fields: Record<string, string> = { ...all };
      delete fields[name];
      const res = await rawRequest(server(), "owner", "POST", "/users", fields);
      expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: name });
    }
  });

  it("the new user starts from the realm's user settings defaults", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const client = server().client("owner");
    await client.realm.updateUserSettingsDefaults({
      email_address_visibility: 4,
      enter_sends: true,
    });
    try {
      const email = `private-${Date.now()}@example.com`;
      const { user_id } = await client.users.create({
        email,
        password: "pw-123456",
        full_name: "Private Person",
      });
      const [seen] = (
        await server()
          .client("member")
          .users.list({ user_ids: [user_id] })
      ).members;
      expect(seen!.delivery_email).toBeNull();
      expect(seen!.email).toBe(`user${user_id}@${sandbox.realm.settings.host}`);
      expect(sandbox.realm.users.get(user_id)!.settings.enter_sends).toBe(true);
    } finally {
      await client.realm.updateUserSettingsDefaults({
        email_address_visibility: 1,
        enter_sends: false,
      });
    }
  });
});
