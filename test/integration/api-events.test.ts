// Contract: event queues (POST /register, GET /events, DELETE /events), against the sandbox (and a real server when configured).
import { expect, it } from "vitest";
import { ManualClock } from "topicbot/sandbox";
import { describeContract, failure, listen, needSandbox, rawRequest } from "./contract/servers.js";

const clock = new ManualClock();

describeContract(
  "event queues: POST /register, GET /events, DELETE /events",
  (server) => {
    it("registers with the realm limits and a queue that answers polls", async () => {
      const reg = await server()
        .client()
        .events.register({
          event_types: ["message"],
          fetch_event_types: ["realm"],
        });
      expect(reg.queue_id).toEqual(expect.any(String));
      expect(reg.last_event_id).toBe(-1);
      expect(reg.zulip_feature_level).toBeGreaterThan(0);
      expect(reg.max_message_length).toBeGreaterThan(0);
      expect(reg.realm_empty_topic_display_name).toEqual(expect.any(String));
      const res = await server().client().events.get({
        queue_id: reg.queue_id!,
        last_event_id: -1,
        dont_block: true,
      });
      expect(res.events).toEqual([]);
      await server().client().events.deleteQueue({ queue_id: reg.queue_id! });
    });

    it("a long-poll with nothing to say ends in a heartbeat", async (ctx) => {
      needSandbox(ctx, server());
      const reg = await server()
        .client()
        .events.register({ event_types: ["message"] });
      const res = await server()
        .client()
        .events.get({ queue_id: reg.queue_id!, last_event_id: -1 });
      expect(res.events).toEqual([expect.objectContaining({ type: "heartbeat", id: 0 })]);
    });

    it("BAD_EVENT_QUEUE_ID with queue_id for an unknown or deleted queue", async () => {
      const error = await failure(
        server().client().events.get({ queue_id: "nope:1", dont_block: true }),
      );
      expect(error).toMatchObject({ code: "BAD_EVENT_QUEUE_ID" });
      expect((error.extra as Record<string, unknown>).queue_id).toBe("nope:1");
      const reg = await server().client().events.register({});
      await server().client().events.deleteQueue({ queue_id: reg.queue_id! });
      expect(
        await failure(server().client().events.deleteQueue({ queue_id: reg.queue_id! })),
      ).toMatchObject({
        code: "BAD_EVENT_QUEUE_ID",
      });
      const missing = await rawRequest(server(), server().main, "GET", "/events", {});
      expect(missing.body).toMatchObject({
        code: "REQUEST_VARIABLE_MISSING",
        var_name: "queue_id",
      });
    });

    it("collects a queue left idle past the timeout", async (ctx) => {
      needSandbox(ctx, server());
      const reg = await server().client().events.register({});
      clock.advance(601_000);
      expect(
        await failure(server().client().events.get({ queue_id: reg.queue_id!, dont_block: true })),
      ).toMatchObject({ code: "BAD_EVENT_QUEUE_ID" });
    });

    it("event IDs increase; acknowledged events are not sent again", async (ctx) => {
      needSandbox(ctx, server());
      const q = await listen(server().client(), { event_types: ["message"] });
      for (const n of [1, 2, 3])
        await server()
          .client("member")
          .messages.send({ type: "channel", to: "general", topic: "ids", content: `m${n}` });
      const events = await q.drain();
      const ids = events.map((e) => e.id as number);
      expect(ids).toHaveLength(3);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(new Set(ids).size).toBe(3);
      expect(await q.drain()).toEqual([]);
    });

    it("filters by event_types and narrow; all_public_streams widens to unsubscribed channels", async (ctx) => {
      needSandbox(ctx, server());
      const realm = server().sandbox!.realm;
      const lonely = realm.addChannel("lonely", "nobody here");
      realm.subscribe(lonely, server().sandbox!.user("mia").userId);
      const onlyReactions = await listen(server().client(), { event_types: ["reaction"] });
      const dms = await listen(server().client(), {
        event_types: ["message"],
        narrow: [["is", "dm"]],
      });
      const plain = await listen(server().client(), { event_types: ["message"] });
      const everything = await listen(server().client(), {
        event_types: ["message"],
        all_public_streams: true,
      });
      const mia = server().client("member");
      await mia.messages.send({ type: "channel", to: "lonely", topic: "t", content: "anyone?" });
      await mia.messages.send({
        type: "direct",
        to: [server().sandbox!.bot.userId],
        content: "hi bot",
      });
      expect(await onlyReactions.drain()).toEqual([]);
      expect((await dms.drain()).map((e) => (e.message as { content: string }).content)).toEqual([
        "hi bot",
      ]);
      expect((await plain.drain()).map((e) => (e.message as { content: string }).content)).toEqual([
        "hi bot",
      ]);
      expect(
        (await everything.drain()).map((e) => (e.message as { content: string }).content),
      ).toEqual(["anyone?", "hi bot"]);
      expect(
        await failure(
          server()
            .client()
            .events.register({ narrow: [["colour", "blue"]] }),
        ),
      ).toMatchObject({ code: "BAD_REQUEST" });
    });

    it("without the empty_topic_name capability the empty topic arrives by its display name", async (ctx) => {
      needSandbox(ctx, server());
      const legacy = await listen(server().client(), { event_types: ["message"] });
      const modern = await listen(server().client(), {
        event_types: ["message"],
        client_capabilities: { empty_topic_name: true },
      });
      const realm = server().sandbox!.realm;
      realm.postMessage({
        sender: realm.users.get(server().sandbox!.user("mia").userId)!,
        kind: "stream",
        channel: realm.channelByName("general")!,
        topic: "",
        content: "no topic",
      });
      expect(((await legacy.drain())[0]!.message as { subject: string }).subject).toBe(
        "general chat",
      );
      expect(((await modern.drain())[0]!.message as { subject: string }).subject).toBe("");
    });
  },
  { clock, queueIdleTimeoutSeconds: 600, heartbeatSeconds: 0.05 },
);
