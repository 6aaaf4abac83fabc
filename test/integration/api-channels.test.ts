// Contract: GET /server_settings, GET /streams, GET and POST /users/me/subscriptions, against the sandbox (and a real server when configured).
import { expect, it } from "vitest";
import { createClient } from "topicbot/client";
import { describeContract, listen, needSandbox, rawRequest } from "./contract/servers.js";

describeContract("channels, subscriptions and server settings", (server) => {
  it("GET /server_settings answers without credentials", async () => {
    const anonymous = createClient({ site: server().client().site, email: "", apiKey: "wrong" });
    try {
      const settings = await anonymous.server.settings();
      expect(settings.zulip_feature_level).toBeGreaterThan(0);
      expect(settings.zulip_version).toEqual(expect.any(String));
    } finally {
      await anonymous.close();
    }
  });

  it("GET /streams lists channels with their IDs and names", async () => {
    const { streams } = await server().client().channels.list();
    expect(streams.length).toBeGreaterThan(0);
    expect(streams[0]).toEqual(
      expect.objectContaining({
        stream_id: expect.any(Number),
        name: expect.any(String),
        invite_only: false,
      }),
    );
  });

  it("GET /users/me/subscriptions lists personal settings", async () => {
    const { subscriptions } = await server()
      .client()
      .subscriptions.list({ include_subscribers: true });
    for (const s of subscriptions) {
      expect(s).toEqual(
        expect.objectContaining({
          color: expect.stringMatching(/^#/),
          is_muted: false,
          pin_to_top: false,
        }),
      );
      expect(s.subscribers).toEqual(expect.any(Array));
    }
  });

  it("subscribes, creating a missing channel, and reports already_subscribed by user ID", async (ctx) => {
    needSandbox(ctx, server());
    const botId = String(server().sandbox!.bot.userId);
    const queue = await listen(server().client(), { event_types: ["subscription"] });
    const peerQueue = await listen(server().client("member"), { event_types: ["subscription"] });
    const res = await server()
      .client()
      .subscriptions.add({
        subscriptions: [{ name: "general" }, { name: "brand-new", description: "made by a bot" }],
      });
    expect(res.subscribed).toEqual({ [botId]: ["brand-new"] });
    expect(res.already_subscribed).toEqual({ [botId]: ["general"] });
    expect((await queue.drain()).map((e) => e.op)).toEqual(["add"]);
    expect(await peerQueue.drain()).toEqual([]);
    const { subscriptions } = await server().client().subscriptions.list();
    expect(subscriptions.map((s) => s.name)).toContain("brand-new");
    const mia = server().client("member");
    await mia.subscriptions.add({ subscriptions: [{ name: "brand-new" }] });
    expect(await queue.drain()).toEqual([
      expect.objectContaining({ op: "peer_add", user_ids: [server().sandbox!.user("mia").userId] }),
    ]);
  });

  it("subscriptions is required", async () => {
    const res = await rawRequest(server(), server().main, "POST", "/users/me/subscriptions", {});
    expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "subscriptions" });
    const bad = await rawRequest(server(), server().main, "POST", "/users/me/subscriptions", {
      subscriptions: "nope",
    });
    expect(bad.body).toMatchObject({ code: "BAD_REQUEST" });
    expect(String(bad.body.msg)).toContain("subscriptions");
  });
});
