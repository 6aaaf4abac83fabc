// Behaviours of subscriptions ported from the server's zerver/tests/test_subs.py (views/streams.py, lib/streams.py).
import { expect, it } from "vitest";
import {
  describeContract,
  eventsDuring,
  needSandbox,
  needWritable,
  rawRequest,
} from "./servers.js";

describeContract("subscriptions (upstream test_subs.py)", (server) => {
  const subscribe = (
    names: string[],
    extra: Record<string, string> = {},
    role: "bot" | "member" | "guest" = "member",
  ) =>
    rawRequest(server(), role, "POST", "/users/me/subscriptions", {
      subscriptions: JSON.stringify(names.map((name) => ({ name }))),
      ...extra,
    });

  // upstream: test_subs.py SubscriptionAPITest.test_subscriptions_add (subscribed keyed by user ID, already_subscribed)
  it("answers subscribed and already_subscribed keyed by user ID", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    needWritable(ctx, server());
    const mia = String(sandbox.user("mia").userId);
    const res = await subscribe(["general", "subs-new"]);
    expect(res.body).toMatchObject({
      subscribed: { [mia]: ["subs-new"] },
      already_subscribed: { [mia]: ["general"] },
    });
  });

  // upstream: test_subs.py SubscriptionAPITest.test_subscriptions_add_for_principal
  it("subscribes other users named in principals and tells them", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const adam = sandbox.user("adam");
    const events = await eventsDuring(server().client("admin"), ["subscription"], () =>
      subscribe(["subs-principal"], { principals: JSON.stringify([adam.userId]) }),
    );
    expect(events).toEqual([expect.objectContaining({ op: "add" })]);
  });

  // upstream: test_subs.py SubscriptionAPITest.test_subscriptions_add_invalid_principal ("No such user")
  it("refuses an unknown principal", async () => {
    const res = await subscribe(["general"], {
      principals: JSON.stringify(["nonexistent@zulip.com"]),
    });
    expect(res.status).toBe(400);
    expect(String(res.body.msg)).toMatch(/No such user/);
  });

  // upstream: test_subs.py StreamAdminTest / check_stream_name ("Channel name can't be empty.")
  it("refuses a blank channel name", async () => {
    const res = await subscribe(["   "]);
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Channel name can't be empty." });
  });

  // upstream: test_subs.py SubscriptionAPITest.test_subscriptions_add_too_long ("Channel name too long (limit: 60 characters).")
  it("refuses a channel name over 60 characters", async () => {
    const res = await subscribe(["a".repeat(61)]);
    expect(res.body).toMatchObject({ msg: "Channel name too long (limit: 60 characters)." });
  });

  // upstream: test_subs.py SubscriptionAPITest.test_subscriptions_add_invalid_stream ("Invalid character in channel name, at position N.")
  it("refuses a channel name with a control character, naming its position", async () => {
    const res = await subscribe(["bad\u0000name"]);
    expect(res.body).toMatchObject({ msg: "Invalid character in channel name, at position 4." });
  });

  // upstream: test_subs.py SubscriptionAPITest.test_subscriptions_add (peer_add to the other subscribers)
  it("sends peer_add to the channel's other subscribers", async (ctx) => {
    needSandbox(ctx, server());
    await subscribe(["subs-peers"], {}, "bot");
    const events = await eventsDuring(server().client(), ["subscription"], () =>
      subscribe(["subs-peers"]),
    );
    expect(events).toEqual([
      expect.objectContaining({ op: "peer_add", user_ids: [server().sandbox!.user("mia").userId] }),
    ]);
  });

  // upstream: test_subs.py GetSubscribersTest / SubscriptionAPITest.test_successful_subscriptions_list
  it("lists the user's subscriptions with stream_id and name", async () => {
    const res = await rawRequest(server(), "member", "GET", "/users/me/subscriptions", {});
    const subs = res.body.subscriptions as { name: string; stream_id: number }[];
    expect(subs.some((s) => s.name === "general" && typeof s.stream_id === "number")).toBe(true);
  });

  // upstream: test_subs.py (views/streams.py add_subscriptions_backend: subscriptions is required)
  it("refuses a subscribe without subscriptions", async () => {
    const res = await rawRequest(server(), "member", "POST", "/users/me/subscriptions", {});
    expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "subscriptions" });
  });
});
