// Contract: POST /messages (types, recipients, topic rule, limits, wildcards, visibility policies), against the sandbox (and a real server when configured).
import { expect, it } from "vitest";
import { ApiError, createClient, InvalidArgumentError, type ApiClient } from "topicbot/client";
import {
  CHANNEL,
  describeContract,
  failure,
  listen,
  needSandbox,
  rawRequest,
} from "./contract/servers.js";

describeContract(
  "POST /messages",
  (server) => {
    it("sends with each of the four type values, to a channel by name and by ID", async () => {
      const a = await server().client().messages.send({
        type: "channel",
        to: CHANNEL,
        topic: "contract",
        content: "one",
      });
      const b = await server().client().messages.send({
        type: "stream",
        to: CHANNEL,
        topic: "contract",
        content: "two",
      });
      const { message } = await server().client().messages.get({ message_id: a.id });
      const c = await server().client().messages.send({
        type: "channel",
        to: message.stream_id!,
        topic: "contract",
        content: "three",
      });
      expect(b.id).toBeGreaterThan(a.id);
      expect(c.id).toBeGreaterThan(b.id);
      const fetched = await server().client().messages.get({ message_id: c.id });
      expect(fetched.message).toMatchObject({
        type: "stream",
        display_recipient: CHANNEL,
        subject: "contract",
      });
    });

    it("sends direct messages to user IDs and to emails, as direct and private", async (ctx) => {
      needSandbox(ctx, server());
      const mia = server().sandbox!.user("mia");
      const bot = server().sandbox!.bot;
      const byId = await server()
        .client()
        .messages.send({
          type: "direct",
          to: [mia.userId],
          content: "hi",
        });
      const byEmail = await server()
        .client()
        .messages.send({
          type: "private",
          to: [mia.email],
          content: "hi again",
        });
      const got = await server().client("member").messages.get({ message_id: byEmail.id });
      expect(got.message.type).toBe("private");
      expect((got.message.display_recipient as { id: number }[]).map((r) => r.id)).toEqual(
        [mia.userId, bot.userId].sort((x, y) => x - y),
      );
      const first = await server().client("member").messages.get({ message_id: byId.id });
      expect(first.message.recipient_id).toBe(got.message.recipient_id);
    });

    it("STREAM_DOES_NOT_EXIST names the channel in `stream`", async () => {
      const error = await failure(
        server().client().messages.send({
          type: "channel",
          to: "no-such-channel-xyz",
          topic: "t",
          content: "c",
        }),
      );
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ code: "STREAM_DOES_NOT_EXIST", status: 400 });
      expect((error as unknown as ApiError).extra.stream).toBe("no-such-channel-xyz");
    });

    it("refuses an unknown direct-message recipient with BAD_REQUEST", async () => {
      const error = await failure(
        server()
          .client()
          .messages.send({ type: "direct", to: [987654], content: "x" }),
      );
      expect(error).toMatchObject({ code: "BAD_REQUEST" });
      const byEmail = await failure(
        server()
          .client()
          .messages.send({ type: "direct", to: ["nobody@nowhere.invalid"], content: "x" }),
      );
      expect(byEmail).toMatchObject({ code: "BAD_REQUEST" });
    });

    it("REQUEST_VARIABLE_MISSING names each missing required parameter", async () => {
      for (const missing of ["type", "to", "content"]) {
        const fields: Record<string, string> = {
          type: "channel",
          to: CHANNEL,
          topic: "t",
          content: "c",
        };
        delete fields[missing];
        const res = await rawRequest(server(), server().main, "POST", "/messages", fields);
        expect(res.status).toBe(400);
        expect(res.body).toMatchObject({
          result: "error",
          code: "REQUEST_VARIABLE_MISSING",
          var_name: missing,
        });
      }
      const noTopic = await rawRequest(server(), server().main, "POST", "/messages", {
        type: "channel",
        to: CHANNEL,
        content: "c",
      });
      expect(noTopic.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "topic" });
    });

    it("a wrongly typed parameter gives BAD_REQUEST naming it", async () => {
      const res = await rawRequest(server(), server().main, "POST", "/messages", {
        type: "fax",
        to: CHANNEL,
        topic: "t",
        content: "c",
      });
      expect(res.body).toMatchObject({ code: "BAD_REQUEST" });
      expect(String(res.body.msg)).toContain("type");
      const flag = await rawRequest(server(), server().main, "POST", "/messages", {
        type: "channel",
        to: CHANNEL,
        topic: "t",
        content: "c",
        read_by_sender: "maybe",
      });
      expect(String(flag.body.msg)).toContain("read_by_sender");
    });

    it("lists unknown parameters in ignored_parameters_unsupported on success", async () => {
      const res = await server()
        .client()
        .messages.send({
          type: "channel",
          to: CHANNEL,
          topic: "contract",
          content: "extra",
          ...({ colour: "blue" } as object),
        } as never);
      expect(res.ignored_parameters_unsupported).toEqual(["colour"]);
    });

    it("the client names a bad argument before sending anything", async () => {
      const error = await failure(
        server()
          .client()
          .messages.send({ type: "fax" as never, to: CHANNEL, content: "c" }),
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as unknown as InvalidArgumentError).parameter).toBe("type");
    });

    it("applies the topic rule: (no topic) and the display name mean the empty topic, which is refused", async (ctx) => {
      needSandbox(ctx, server());
      for (const topic of ["(no topic)", "general chat", "", "   "]) {
        const error = await failure(
          server().client().messages.send({ type: "channel", to: CHANNEL, topic, content: "c" }),
        );
        expect(error, topic).toMatchObject({ code: "BAD_REQUEST" });
      }
    });

    it("stores content and topics as the server does: stripped, cut to the registration's maxima with its markers", async () => {
      const client = server().client();
      const reg = await client.events.register({ fetch_event_types: ["realm"] });
      const maxTopic = reg.max_topic_length!;
      const maxContent = reg.max_message_length!;
      const stored = async (topic: string, content: string) => {
        const { id } = await client.messages.send({ type: "channel", to: CHANNEL, topic, content });
        const { message, raw_content } = await client.messages.get({
          message_id: id,
          apply_markdown: false,
        });
        return { topic: message.subject, content: raw_content };
      };
      // A reply "x\n" is stored as "x": trailing whitespace and leading blank lines go, leading spaces stay.
      expect(await stored("  padded topic  ", "x\n")).toEqual({
        topic: "padded topic",
        content: "x",
      });
      expect((await stored("t", "\n\n  indented\n\n \t")).content).toBe("  indented");
      expect((await stored("é".repeat(maxTopic), "ok")).topic).toBe("é".repeat(maxTopic));
      expect((await stored("é".repeat(maxTopic + 5), "ok")).topic).toBe(
        `${"é".repeat(maxTopic - 3)}...`,
      );
      const long = await stored("t", "x".repeat(maxContent + 1));
      expect(long.content).toBe(`${"x".repeat(maxContent - 20)}\n[message truncated]`);
      for (const [topic, content, message] of [
        ["t", "a\u0000b", "Message must not contain null bytes"],
        ["t", " \n\t", "Message must not be empty"],
        ["a\u0007b", "c", "Invalid character in topic, at position 2!"],
      ] as const) {
        expect(
          await failure(client.messages.send({ type: "channel", to: CHANNEL, topic, content })),
        ).toMatchObject({ code: "BAD_REQUEST", msg: message });
      }
    });

    it("refuses wildcard mentions from members in large channels and topics, with their codes", async (ctx) => {
      needSandbox(ctx, server());
      const mia = server().client("member");
      const channelError = await failure(
        mia.messages.send({
          type: "channel",
          to: "general",
          topic: "wild",
          content: "hey @**all**",
        }),
      );
      expect(channelError).toMatchObject({ code: "STREAM_WILDCARD_MENTION_NOT_ALLOWED" });
      for (const role of ["owner", "admin", "moderator", "guest"] as const) {
        await server()
          .client(role)
          .messages.send({ type: "channel", to: "general", topic: "busy", content: "hi" });
      }
      const topicError = await failure(
        mia.messages.send({
          type: "channel",
          to: "general",
          topic: "busy",
          content: "@**topic** look",
        }),
      );
      expect(topicError).toMatchObject({ code: "TOPIC_WILDCARD_MENTION_NOT_ALLOWED" });
      // Moderators and above may; recipients get the wildcard flags.
      const { id } = await server().client("moderator").messages.send({
        type: "channel",
        to: "general",
        topic: "busy",
        content: "@**all** and @**topic**",
      });
      const seen = await server().client("owner").messages.get({ message_id: id });
      expect(seen.message.flags).toEqual(
        expect.arrayContaining([
          "stream_wildcard_mentioned",
          "topic_wildcard_mentioned",
          "wildcard_mentioned",
        ]),
      );
    });

    it("echoes local_id into the message event of the named queue only", async (ctx) => {
      needSandbox(ctx, server());
      const mine = await listen(server().client(), { event_types: ["message"] });
      const other = await listen(server().client(), { event_types: ["message"] });
      await server().client().messages.send({
        type: "channel",
        to: CHANNEL,
        topic: "echo",
        content: "local",
        queue_id: mine.queueId,
        local_id: "abc-1",
      });
      const [event] = await mine.drain();
      expect(event).toMatchObject({ type: "message", local_message_id: "abc-1" });
      const [otherEvent] = await other.drain();
      expect(otherEvent).toMatchObject({ type: "message" });
      expect(otherEvent).not.toHaveProperty("local_message_id");
      const res = await rawRequest(server(), server().main, "POST", "/messages", {
        type: "channel",
        to: CHANNEL,
        topic: "echo",
        content: "x",
        queue_id: mine.queueId,
      });
      expect(res.body).toMatchObject({ code: "REQUEST_VARIABLE_MISSING", var_name: "local_id" });
    });

    it("without read_by_sender, the client's name decides: apps people type into read, API clients not", async () => {
      const main = server().account(server().main)!;
      const asApp = (userAgent: string) =>
        createClient({ site: server().site, email: main.email, apiKey: main.apiKey, userAgent });
      const mobile = asApp("ZulipMobile/27.231 (Android 14)");
      const desktop = asApp("ZulipElectron/5.11.1 Chrome");
      try {
        const send = (client: ApiClient) =>
          client.messages.send({ type: "channel", to: CHANNEL, topic: "heuristic", content: "h" });
        const fromApi = await send(server().client());
        const fromMobile = await send(mobile);
        const fromDesktop = await send(desktop);
        const view = async (id: number) =>
          (await server().client().messages.get({ message_id: id })).message;
        const api = await view(fromApi.id);
        expect(api.flags).not.toContain("read");
        expect(api.client).toBe("topicbot");
        const app = await view(fromMobile.id);
        expect(app.flags).toContain("read");
        expect(app.client).toBe("ZulipMobile");
        expect((await view(fromDesktop.id)).flags).toContain("read");
      } finally {
        await Promise.all([mobile.close(), desktop.close()]);
      }
    });

    it("read_by_sender decides whether the sender's copy starts read", async () => {
      const unread = await server().client().messages.send({
        type: "channel",
        to: CHANNEL,
        topic: "rbs",
        content: "u",
        read_by_sender: false,
      });
      const read = await server().client().messages.send({
        type: "channel",
        to: CHANNEL,
        topic: "rbs",
        content: "r",
        read_by_sender: true,
      });
      expect(
        (await server().client().messages.get({ message_id: unread.id })).message.flags,
      ).not.toContain("read");
      expect(
        (await server().client().messages.get({ message_id: read.id })).message.flags,
      ).toContain("read");
    });

    it("follows a topic the sender starts: automatic_new_visibility_policy and a user_topic event", async (ctx) => {
      needSandbox(ctx, server());
      const queue = await listen(server().client(), { event_types: ["user_topic"] });
      const first = await server().client().messages.send({
        type: "channel",
        to: "sandbox",
        topic: "fresh",
        content: "a",
      });
      expect(first.automatic_new_visibility_policy).toBe(3);
      const events = await queue.drain();
      expect(events).toEqual([
        expect.objectContaining({ type: "user_topic", topic_name: "fresh", visibility_policy: 3 }),
      ]);
      const second = await server().client().messages.send({
        type: "channel",
        to: "sandbox",
        topic: "fresh",
        content: "b",
      });
      expect(second.automatic_new_visibility_policy).toBeUndefined();
      // Someone else's topic: not started by the bot, so no change under the default policy.
      await server()
        .client("member")
        .messages.send({ type: "channel", to: "sandbox", topic: "hers", content: "a" });
      const reply = await server().client().messages.send({
        type: "channel",
        to: "sandbox",
        topic: "hers",
        content: "b",
      });
      expect(reply.automatic_new_visibility_policy).toBeUndefined();
    });
  },
  { settings: { wildcardMentionThreshold: 3 } },
);
