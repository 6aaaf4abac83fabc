// The sandbox plays the server's user access rule for guests (can_access_all_users_group): "Unknown user" for the rest.
import { afterEach, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../src/sandbox/server.js";
import { createClient } from "../../src/client/client.js";

describe("guest user access (can_access_all_users_group)", () => {
  let sandbox: Sandbox;
  afterEach(() => sandbox.close());

  const clientOf = (handle: string) => {
    const u = sandbox.user(handle);
    return createClient({ site: sandbox.url, email: u.email, apiKey: u.apiKey });
  };
  /** The names `handle` is shown for every user, by user ID, through GET /users and /register. */
  const namesSeenBy = async (handle: string) => {
    const client = clientOf(handle);
    try {
      const { members } = await client.users.list({});
      const state = await client.events.register({ fetch_event_types: ["realm_user"] });
      const registered = [
        ...(state.realm_users as { user_id: number; full_name: string }[]),
        ...(state.realm_non_active_users as { user_id: number; full_name: string }[]),
      ];
      const byList = new Map(members.map((m) => [m.user_id, m.full_name]));
      expect(new Map(registered.map((m) => [m.user_id, m.full_name]))).toEqual(byList);
      return byList;
    } finally {
      await client.close();
    }
  };

  it("by default (as the server) a guest sees everyone", async () => {
    sandbox = await startSandbox();
    const gus = sandbox.user("gus").userId;
    for (const channel of sandbox.realm.channels.values()) channel.subscribers.delete(gus);
    const names = await namesSeenBy("gus");
    expect(names.get(sandbox.user("mia").userId)).toBe("Mia Member");
    expect([...names.values()]).not.toContain("Unknown user");
  });

  it("restricted: a guest sees themselves, bots, channel co-subscribers and DM partners; the rest are Unknown user", async () => {
    sandbox = await startSandbox({ settings: { canAccessAllUsersGroup: "role:members" } });
    const { realm } = sandbox;
    const id = (handle: string) => sandbox.user(handle).userId;
    for (const channel of realm.channels.values()) channel.subscribers.delete(id("gus"));
    const lobby = realm.addChannel("lobby");
    for (const who of ["gus", "mia"]) realm.subscribe(lobby, id(who));

    let names = await namesSeenBy("gus");
    expect(names.get(id("gus"))).toBe("Gus Guest");
    expect(names.get(id("mia"))).toBe("Mia Member");
    expect(names.get(sandbox.bot.userId)).toBe(sandbox.bot.fullName);
    for (const hidden of ["olivia", "adam", "max"])
      expect(names.get(id(hidden))).toBe("Unknown user");
    const client = clientOf("gus");
    const { members } = await client.users.list({ user_ids: [id("adam")] });
    expect(members).toEqual([
      expect.objectContaining({
        user_id: id("adam"),
        full_name: "Unknown user",
        email: `user${id("adam")}@${realm.settings.host}`,
        delivery_email: null,
        is_admin: false,
      }),
    ]);

    // A direct message makes its participants visible to each other, whoever wrote first.
    const max = clientOf("max");
    await max.messages.send({ type: "direct", to: [id("gus")], content: "hi guest" });
    await max.close();
    names = await namesSeenBy("gus");
    expect(names.get(id("max"))).toBe("Max Moderator");
    expect(names.get(id("olivia"))).toBe("Unknown user");
    await client.close();

    // Members see everyone, whatever the setting.
    expect([...(await namesSeenBy("mia")).values()]).not.toContain("Unknown user");
  });
});
