// Behaviours of the event queue ported from the server's zerver/tests/test_event_system.py and test_events.py.
import { expect, it } from "vitest";
import { describeContract, eventsDuring, listen, needSandbox, rawRequest } from "./servers.js";

describeContract("event queues (upstream test_event_system.py, test_events.py)", (server) => {
  // upstream: test_event_system.py EventsEndpointTest.test_events_register_endpoint (queue_id, last_event_id -1, versions)
  it("registers a queue with queue_id, last_event_id -1 and the server's versions", async () => {
    const res = await rawRequest(server(), "bot", "POST", "/register", {
      event_types: '["message"]',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: "success", last_event_id: -1 });
    expect(typeof res.body.queue_id).toBe("string");
    expect(typeof res.body.zulip_feature_level).toBe("number");
    expect(typeof res.body.zulip_version).toBe("string");
  });

  // upstream: test_event_system.py EventsEndpointTest.test_events_register_endpoint (GET /events with dont_block and no events)
  it("answers an empty poll at once with dont_block", async () => {
    const reg = await server()
      .client()
      .events.register({ event_types: ["message"] });
    const res = await rawRequest(server(), "bot", "GET", "/events", {
      queue_id: reg.queue_id!,
      last_event_id: "-1",
      dont_block: "true",
    });
    expect(res.body).toMatchObject({ result: "success", events: [] });
  });

  // upstream: test_event_system.py EventsEndpointTest.test_events_register_endpoint (a bad queue ID)
  it("refuses an unknown queue with BAD_EVENT_QUEUE_ID and the queue_id", async () => {
    const res = await rawRequest(server(), "bot", "GET", "/events", {
      queue_id: "nonsense",
      last_event_id: "-1",
      dont_block: "true",
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: "BAD_EVENT_QUEUE_ID",
      msg: "Bad event queue ID: nonsense",
      queue_id: "nonsense",
    });
  });

  // upstream: test_event_system.py EventsEndpointTest.test_events_register_endpoint (another user's queue is no queue of ours)
  it("refuses another user's queue", async (ctx) => {
    needSandbox(ctx, server());
    const reg = await server()
      .client("member")
      .events.register({ event_types: ["message"] });
    const res = await rawRequest(server(), "bot", "GET", "/events", {
      queue_id: reg.queue_id!,
      last_event_id: "-1",
      dont_block: "true",
    });
    expect(res.body).toMatchObject({ code: "BAD_EVENT_QUEUE_ID" });
  });

  // upstream: test_event_system.py EventsEndpointTest.test_events_register_endpoint (DELETE /events, then the queue is gone)
  it("deletes a queue; a second delete is BAD_EVENT_QUEUE_ID", async () => {
    const reg = await server()
      .client()
      .events.register({ event_types: ["message"] });
    expect(
      (await rawRequest(server(), "bot", "DELETE", "/events", { queue_id: reg.queue_id! })).status,
    ).toBe(200);
    const again = await rawRequest(server(), "bot", "DELETE", "/events", {
      queue_id: reg.queue_id!,
    });
    expect(again.body).toMatchObject({ code: "BAD_EVENT_QUEUE_ID", queue_id: reg.queue_id });
  });

  // upstream: test_event_system.py GetEventsTest.test_get_events (a message event carries the message and flags)
  it("delivers a message event with the message and the receiver's flags", async (ctx) => {
    needSandbox(ctx, server());
    const queue = await listen(server().client(), { event_types: ["message"] });
    const { id } = await server()
      .client("member")
      .messages.send({ type: "channel", to: "general", topic: "events", content: "hi" });
    const events = await queue.drain();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "message",
      message: { id, content: "hi", type: "stream" },
      flags: [],
    });
    expect(events[0]).toHaveProperty("id");
  });

  // upstream: test_event_system.py GetEventsTest.test_get_events (events acknowledged by last_event_id are dropped)
  it("drops events up to last_event_id", async (ctx) => {
    needSandbox(ctx, server());
    const reg = await server()
      .client()
      .events.register({ event_types: ["message"] });
    const mia = server().client("member");
    await mia.messages.send({ type: "channel", to: "general", topic: "events", content: "one" });
    await mia.messages.send({ type: "channel", to: "general", topic: "events", content: "two" });
    const first = await server()
      .client()
      .events.get({ queue_id: reg.queue_id!, last_event_id: -1, dont_block: true });
    expect(first.events.map((e) => e.id)).toEqual([0, 1]);
    const rest = await server()
      .client()
      .events.get({ queue_id: reg.queue_id!, last_event_id: 0, dont_block: true });
    expect(rest.events.map((e) => e.id)).toEqual([1]);
  });

  // upstream: test_event_system.py (event IDs increase from 0 per queue)
  it("numbers each queue's events from 0 upwards", async (ctx) => {
    needSandbox(ctx, server());
    const events = await eventsDuring(server().client(), ["message"], async () => {
      for (const content of ["a", "b", "c"])
        await server()
          .client("member")
          .messages.send({ type: "channel", to: "general", topic: "events", content });
    });
    expect(events.map((e) => e.id)).toEqual([0, 1, 2]);
  });

  // upstream: test_events.py NormalActionsTest (event_types filter: only the asked types arrive)
  it("delivers only the event types asked for", async (ctx) => {
    needSandbox(ctx, server());
    const events = await eventsDuring(server().client(), ["reaction"], async () => {
      const { id } = await server()
        .client("member")
        .messages.send({ type: "channel", to: "general", topic: "events", content: "x" });
      await server().client("member").messages.addReaction({ message_id: id, emoji_name: "tada" });
    });
    expect(events.map((e) => e.type)).toEqual(["reaction"]);
  });

  // upstream: test_events.py FetchInitialStateDataTest (fetch_event_types: realm_user gives realm_users and the own user)
  it("fetches initial state for fetch_event_types", async () => {
    const reg = await server()
      .client()
      .events.register({ event_types: ["message"], fetch_event_types: ["realm_user"] });
    expect(Array.isArray((reg as { realm_users?: unknown[] }).realm_users)).toBe(true);
    expect(reg).toHaveProperty("user_id");
  });

  // upstream: test_event_system.py EventsEndpointTest.test_events_register_endpoint (narrow operators the queue cannot filter on)
  it("refuses a register narrow with an operator queues do not support", async () => {
    const res = await rawRequest(server(), "bot", "POST", "/register", {
      narrow: JSON.stringify([["search", "x"]]),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "BAD_REQUEST", msg: "Operator search not supported." });
  });

  // upstream: test_event_system.py EventsEndpointTest.test_events_register_endpoint (a narrowed queue gets only its channel's messages)
  it("filters a narrowed queue's messages to its channel", async (ctx) => {
    needSandbox(ctx, server());
    const reg = await server()
      .client()
      .events.register({ event_types: ["message"], narrow: [["channel", "sandbox"]] });
    const mia = server().client("member");
    await mia.messages.send({
      type: "channel",
      to: "general",
      topic: "events",
      content: "elsewhere",
    });
    const { id } = await mia.messages.send({
      type: "channel",
      to: "sandbox",
      topic: "events",
      content: "here",
    });
    const { events } = await server()
      .client()
      .events.get({ queue_id: reg.queue_id!, last_event_id: -1, dont_block: true });
    expect(
      events.filter((e) => e.type === "message").map((e) => (e.message as { id: number }).id),
    ).toEqual([id]);
  });
});
