// Contract: POST /users/me/subscriptions/properties (subscriptions.updateProperties).
import { expect, it } from "vitest";
import { InvalidArgumentError } from "topicbot/client";
import {
  describeContract,
  eventsDuring,
  expectApiError,
  needSandbox,
  rawRequest,
} from "./contract/servers.js";

const BOOLEAN_PROPERTIES = [
  "pin_to_top",
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "wildcard_mentions_notify",
] as const;

describeContract("POST /users/me/subscriptions/properties", (server) => {
  const general = () => server().sandbox!.realm.channelByName("general")!.streamId;
  const props = (handle: string) => {
    const sandbox = server().sandbox!;
    return sandbox.realm.subscriptionProperties.of(sandbox.user(handle).userId, general());
  };

  it("sets every boolean property and a hex colour, one event each, without echoing", async (ctx) => {
    needSandbox(ctx, server());
    const client = server().client("member");
    const stream_id = general();
    const data = [
      ...BOOLEAN_PROPERTIES.map((property) => ({ stream_id, property, value: true })),
      { stream_id, property: "color" as const, value: "#f00f00" },
    ];
    let response: Record<string, unknown> = {};
    const events = await eventsDuring(client, ["subscription"], async () => {
      response = await client.subscriptions.updateProperties({ subscription_data: data });
    });
    expect(response).not.toHaveProperty("subscription_data");
    expect(events.map((e) => [e.property, e.value])).toEqual(
      data.map((d) => [d.property, d.value]),
    );
    expect(events.every((e) => e.op === "update" && e.stream_id === stream_id)).toBe(true);
    expect(props("mia")).toMatchObject({
      pin_to_top: true,
      push_notifications: true,
      color: "#f00f00",
    });
  });

  it("is_muted and in_home_view are inverses, and either sends two events", async (ctx) => {
    needSandbox(ctx, server());
    const client = server().client("member");
    const stream_id = general();
    const muted = await eventsDuring(client, ["subscription"], () =>
      client.subscriptions.updateProperties({
        subscription_data: [{ stream_id, property: "is_muted", value: true }],
      }),
    );
    // The server's order (do_change_subscription_property): the deprecated in_home_view first.
    expect(muted.map((e) => [e.property, e.value])).toEqual([
      ["in_home_view", false],
      ["is_muted", true],
    ]);
    expect(props("mia").is_muted).toBe(true);
    const shown = await eventsDuring(client, ["subscription"], () =>
      client.subscriptions.updateProperties({
        subscription_data: [{ stream_id, property: "in_home_view", value: true }],
      }),
    );
    expect(shown.map((e) => [e.property, e.value])).toEqual([
      ["in_home_view", true],
      ["is_muted", false],
    ]);
    expect(props("mia").is_muted).toBe(false);
  });

  it("refuses a channel the user is not subscribed to, and one that does not exist", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const lonely = sandbox.realm.addChannel("lonely");
    const client = server().client("member");
    const error = await expectApiError(
      client.subscriptions.updateProperties({
        subscription_data: [{ stream_id: lonely.streamId, property: "pin_to_top", value: true }],
      }),
      "BAD_REQUEST",
      400,
    );
    expect(error.msg).toMatch(/Not subscribed/);
    await expectApiError(
      client.subscriptions.updateProperties({
        subscription_data: [{ stream_id: 9999, property: "pin_to_top", value: true }],
      }),
      "BAD_REQUEST",
    );
  });

  it("refuses colours that are not hex, and changes nothing when one item is bad", async (ctx) => {
    needSandbox(ctx, server());
    const client = server().client("moderator");
    const stream_id = general();
    for (const value of ["red", "#12345", "#ggg000", "f00f00"]) {
      await expectApiError(
        client.subscriptions.updateProperties({
          subscription_data: [
            { stream_id, property: "pin_to_top", value: true },
            { stream_id, property: "color", value },
          ],
        }),
        "BAD_REQUEST",
      );
    }
    expect(props("max").pin_to_top).toBe(false);
    await client.subscriptions.updateProperties({
      subscription_data: [{ stream_id, property: "color", value: "#abc" }],
    });
    expect(props("max").color).toBe("#abc");
  });

  it("checks value types: the client before sending, the server on raw requests", async (ctx) => {
    needSandbox(ctx, server());
    const stream_id = general();
    await expect(
      server()
        .client("member")
        .subscriptions.updateProperties({
          subscription_data: [
            { stream_id, property: "is_muted", value: "yes" as unknown as boolean },
          ],
        }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    for (const item of [
      { stream_id, property: "is_muted", value: "yes" },
      { stream_id, property: "color", value: true },
      { stream_id, property: "volume", value: true },
    ]) {
      const res = await rawRequest(
        server(),
        "member",
        "POST",
        "/users/me/subscriptions/properties",
        {
          subscription_data: JSON.stringify([item]),
        },
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("BAD_REQUEST");
    }
    const missing = await rawRequest(
      server(),
      "member",
      "POST",
      "/users/me/subscriptions/properties",
    );
    expect(missing.body).toMatchObject({
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "subscription_data",
    });
  });

  it("GET /users/me/subscriptions and the is:muted narrow read the properties set", async (ctx) => {
    needSandbox(ctx, server());
    const client = server().client("moderator");
    const stream_id = general();
    const generalOf = async () =>
      (await client.subscriptions.list()).subscriptions.find((s) => s.stream_id === stream_id)!;
    await client.subscriptions.updateProperties({
      subscription_data: [
        { stream_id, property: "color", value: "#abc" },
        { stream_id, property: "is_muted", value: true },
        { stream_id, property: "pin_to_top", value: true },
        { stream_id, property: "desktop_notifications", value: false },
        { stream_id, property: "wildcard_mentions_notify", value: true },
      ],
    });
    expect(await generalOf()).toMatchObject({
      color: "#abc",
      is_muted: true,
      in_home_view: false,
      pin_to_top: true,
      desktop_notifications: false,
      audible_notifications: null,
      wildcard_mentions_notify: true,
    });
    const { id } = await server()
      .client("member")
      .messages.send({ type: "channel", to: "general", topic: "muted?", content: "hi" });
    const muted = async () =>
      (
        await client.messages.list({
          anchor: "newest",
          num_before: 10,
          num_after: 0,
          narrow: [{ operator: "is", operand: "muted" }],
        })
      ).messages.map((m) => m.id);
    expect(await muted()).toContain(id);

    await client.subscriptions.updateProperties({
      subscription_data: [{ stream_id, property: "in_home_view", value: true }],
    });
    expect(await generalOf()).toMatchObject({ is_muted: false, in_home_view: true, color: "#abc" });
    expect(await muted()).not.toContain(id);
    // Someone else's properties are their own.
    const mine = (await server().client("guest").subscriptions.list()).subscriptions.find(
      (s) => s.stream_id === stream_id,
    )!;
    expect(mine).toMatchObject({ color: expect.not.stringMatching(/^#abc$/), pin_to_top: false });
  });

  it("is_muted drives the automatic unmute of topics the user sends to", async (ctx) => {
    const sandbox = needSandbox(ctx, server());
    const client = server().client("guest");
    const stream_id = general();
    await server()
      .client("member")
      .messages.send({ type: "channel", to: "general", topic: "theirs", content: "a" });
    const before = await client.messages.send({
      type: "channel",
      to: "general",
      topic: "theirs",
      content: "b",
    });
    expect(before.automatic_new_visibility_policy).toBeUndefined();
    await client.subscriptions.updateProperties({
      subscription_data: [{ stream_id, property: "is_muted", value: true }],
    });
    const events = await eventsDuring(client, ["user_topic"], async () => {
      const after = await client.messages.send({
        type: "channel",
        to: "general",
        topic: "theirs",
        content: "c",
      });
      expect(after.automatic_new_visibility_policy).toBe(2);
    });
    expect(events).toEqual([
      expect.objectContaining({
        type: "user_topic",
        stream_id,
        topic_name: "theirs",
        visibility_policy: 2,
      }),
    ]);
    expect(sandbox.realm.topicPolicy(sandbox.user("gus").userId, stream_id, "theirs")).toBe(2);
    // Already unmuted: no further change.
    const again = await client.messages.send({
      type: "channel",
      to: "general",
      topic: "theirs",
      content: "d",
    });
    expect(again.automatic_new_visibility_policy).toBeUndefined();
  });
});
