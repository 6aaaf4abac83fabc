// Contract: POST /scheduled_messages, against the sandbox (and a real server when configured).
import { beforeAll, expect, it } from "vitest";
import { ManualClock } from "topicbot/sandbox";
import { createClient, type ApiClient } from "topicbot/client";
import { describeContract, failure, listen, needSandbox, rawRequest } from "./contract/servers.js";

const clock = new ManualClock(new Date("2030-01-01T12:00:00Z"));

describeContract(
  "POST /scheduled_messages",
  (server) => {
    let generalId: number;
    const now = () => Math.floor(clock.now() / 1000);
    beforeAll(async () => {
      generalId = (await server().client().channels.list()).streams.find(
        (s) => s.name === "general",
      )!.stream_id;
    });

    it("delivers a channel message when the clock reaches its time, with a new ID and events", async (ctx) => {
      needSandbox(ctx, server());
      const mia = server().client("member");
      const queue = await listen(mia, { event_types: ["message"] });
      const own = await listen(server().client(), { event_types: ["scheduled_messages"] });
      const { scheduled_message_id: scheduledId } = await server()
        .client()
        .scheduledMessages.create({
          type: "channel",
          to: generalId,
          topic: "later",
          content: "from the past",
          scheduled_delivery_timestamp: now() + 3600,
        });
      expect(await queue.drain()).toEqual([]);
      clock.advance(3599_000);
      expect(await queue.drain()).toEqual([]);
      clock.advance(1000);
      const [event] = await queue.drain();
      expect(event).toMatchObject({
        type: "message",
        message: { subject: "later", content: "from the past" },
      });
      const sentId = (event!.message as { id: number }).id;
      expect(sentId).not.toBe(scheduledId);
      expect((await own.drain()).map((e) => e.op)).toEqual(["add", "remove"]);
    });

    it("delivers direct messages to user IDs", async (ctx) => {
      needSandbox(ctx, server());
      const mia = server().sandbox!.user("mia");
      const queue = await listen(server().client("member"), { event_types: ["message"] });
      await server()
        .client()
        .scheduledMessages.create({
          type: "direct",
          to: [mia.userId],
          content: "dm later",
          scheduled_delivery_timestamp: now() + 60,
        });
      clock.advance(60_000);
      const [event] = await queue.drain();
      expect(event).toMatchObject({ message: { type: "private", content: "dm later" } });
    });

    it("without read_by_sender: read from an app people type into, unless sent to oneself alone", async (ctx) => {
      const sandbox = needSandbox(ctx, server());
      const olivia = sandbox.user("olivia");
      const web = createClient({
        site: server().site,
        email: olivia.email,
        apiKey: olivia.apiKey,
        userAgent: "website",
      });
      try {
        const schedule = (client: ApiClient, to: number) =>
          client.scheduledMessages.create({
            type: "direct",
            to: [to],
            content: `for ${to}`,
            scheduled_delivery_timestamp: now() + 30,
          });
        const mia = sandbox.user("mia").userId;
        await schedule(web, mia);
        await schedule(web, olivia.userId); // a reminder to herself
        await schedule(server().client("owner"), mia); // the API client
        clock.advance(30_000);
        const sent = sandbox.realm.messages.slice(-3);
        expect(
          sent.map((m) => [m.content, m.client, m.flags.get(olivia.userId)!.has("read")]),
        ).toEqual([
          [`for ${mia}`, "website", true],
          [`for ${olivia.userId}`, "website", false],
          [`for ${mia}`, "topicbot", false],
        ]);
      } finally {
        await web.close();
      }
    });

    it("STREAM_DOES_NOT_EXIST carries stream_id", async () => {
      const error = await failure(
        server()
          .client()
          .scheduledMessages.create({
            type: "channel",
            to: 987654,
            topic: "t",
            content: "c",
            scheduled_delivery_timestamp: now() + 60,
          }),
      );
      expect(error).toMatchObject({ code: "STREAM_DOES_NOT_EXIST" });
      expect((error.extra as Record<string, unknown>).stream_id).toBe(987654);
    });

    it("refuses an unknown user ID, a past time, names instead of IDs, and a missing topic", async () => {
      expect(
        await failure(
          server()
            .client()
            .scheduledMessages.create({
              type: "direct",
              to: [987654],
              content: "c",
              scheduled_delivery_timestamp: now() + 60,
            }),
        ),
      ).toMatchObject({ code: "BAD_REQUEST" });
      expect(
        await failure(
          server()
            .client()
            .scheduledMessages.create({
              type: "channel",
              to: generalId,
              topic: "t",
              content: "c",
              scheduled_delivery_timestamp: now() - 1,
            }),
        ),
      ).toMatchObject({ code: "BAD_REQUEST" });
      const byName = await rawRequest(server(), server().main, "POST", "/scheduled_messages", {
        type: "channel",
        to: "general",
        topic: "t",
        content: "c",
        scheduled_delivery_timestamp: String(now() + 60),
      });
      expect(byName.body).toMatchObject({ code: "BAD_REQUEST" });
      const noTopic = await rawRequest(server(), server().main, "POST", "/scheduled_messages", {
        type: "channel",
        to: String(generalId),
        content: "c",
        scheduled_delivery_timestamp: String(now() + 60),
      });
      expect(noTopic.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "topic" });
      const noTime = await rawRequest(server(), server().main, "POST", "/scheduled_messages", {
        type: "direct",
        to: "[1]",
        content: "c",
      });
      expect(noTime.body).toMatchObject({
        code: "REQUEST_VARIABLE_MISSING",
        var_name: "scheduled_delivery_timestamp",
      });
    });
  },
  { clock, queueIdleTimeoutSeconds: 7 * 86_400 },
);
