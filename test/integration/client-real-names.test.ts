// The client as a tolerant reader over loopback HTTP: bodies shaped as the real server sends them (zulip_feature_level, zulip_extra_emoji, edit refusals), and the contract's names from the sandbox.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiError,
  createClient,
  MessageEditWindowError,
  MessageMoveWindowError,
  WidgetEditError,
  type ApiClient,
} from "../../src/client/index.js";
import { startSandbox } from "../../src/sandbox/index.js";

/** Answers, by `METHOD /path`, what a real Zulip server answers (its field names, its words). */
const REAL_ANSWERS: Record<string, [number, Record<string, unknown>]> = {
  "GET /api/v1/server_settings": [
    200,
    { result: "success", msg: "", zulip_feature_level: 412, zulip_version: "11.2", realm_url: "x" },
  ],
  "POST /api/v1/register": [
    200,
    {
      result: "success",
      msg: "",
      queue_id: "q1",
      last_event_id: -1,
      zulip_feature_level: 412,
      realm_message_content_edit_limit_seconds: 600,
    },
  ],
  "GET /api/v1/messages/7": [
    200,
    {
      result: "success",
      msg: "",
      raw_content: ":zulip:",
      message: {
        id: 7,
        type: "stream",
        stream_id: 1,
        subject: "t",
        content: "<p>hi</p>",
        timestamp: 1,
        sender_id: 2,
        sender_email: "a@example.com",
        sender_full_name: "A",
        display_recipient: "general",
        reactions: [
          {
            emoji_name: "zulip",
            emoji_code: "zulip",
            reaction_type: "zulip_extra_emoji",
            user_id: 3,
          },
        ],
        submessages: [],
      },
    },
  ],
  "PATCH /api/v1/messages/7": [
    400,
    {
      result: "error",
      code: "BAD_REQUEST",
      msg: "The time limit for editing this message has passed",
    },
  ],
  "PATCH /api/v1/messages/8": [
    400,
    { result: "error", code: "BAD_REQUEST", msg: "Widgets cannot be edited." },
  ],
  "PATCH /api/v1/messages/9": [
    400,
    {
      result: "error",
      code: "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
      msg: "You only have permission to move the 2/5 most recent messages in this topic.",
      first_message_id_allowed_to_move: 123,
      total_messages_allowed_to_move: 2,
      total_messages_in_topic: 5,
    },
  ],
  // A server before feature level 76: no code, and the old spelling.
  "PATCH /api/v1/messages/10": [
    400,
    { result: "error", msg: "The time limit for editing this message has past" },
  ],
  "PATCH /api/v1/messages/11": [
    400,
    { result: "error", code: "BAD_REQUEST", msg: "You don't have permission to edit this message" },
  ],
};

describe("the client reads the real server's names", () => {
  let server: Server;
  let client: ApiClient;
  beforeAll(async () => {
    server = createServer((req, res) => {
      const [status, body] = REAL_ANSWERS[`${req.method} ${req.url?.split("?")[0]}`] ?? [
        404,
        { result: "error", code: "BAD_REQUEST", msg: "not here" },
      ];
      req.resume();
      req.on("end", () => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    client = createClient({
      site: `http://127.0.0.1:${port}`,
      email: "bot@example.com",
      apiKey: "key",
      retry: { maxAttempts: 1 },
    });
  });
  afterAll(async () => {
    await client.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it("takes zulip_feature_level as the contract's service_feature_level", async () => {
    const settings = await client.server.settings();
    expect(settings).toMatchObject({ service_feature_level: 412, zulip_feature_level: 412 });
    const reg = await client.events.register();
    expect(reg).toMatchObject({ service_feature_level: 412, zulip_feature_level: 412 });
    expect(reg.realm_message_content_edit_limit_seconds).toBe(600);
  });

  it("keeps zulip_extra_emoji reactions as the server named them (to vote with the same value)", async () => {
    const { message } = await client.messages.get({ message_id: 7 });
    expect(message.reactions[0]!.reaction_type).toBe("zulip_extra_emoji");
  });

  it("recognises the edit refusals by code and words, older servers' too", async () => {
    const refusal = async (id: number) => {
      try {
        await client.messages.update({ message_id: id, content: "x" });
      } catch (error) {
        return error as ApiError;
      }
      throw new Error("expected a refusal");
    };
    expect(await refusal(7)).toBeInstanceOf(MessageEditWindowError);
    expect(await refusal(10)).toBeInstanceOf(MessageEditWindowError);
    expect(await refusal(8)).toBeInstanceOf(WidgetEditError);
    const move = await refusal(9);
    expect(move).toBeInstanceOf(MessageMoveWindowError);
    expect(move).toMatchObject({ firstMovable: 123, movable: 2, inTopic: 5 });
    const other = await refusal(11);
    expect(other).toBeInstanceOf(ApiError);
    expect(other).not.toBeInstanceOf(MessageEditWindowError);
    expect(other.name).toBe("ApiError");
  });
});

describe("the sandbox speaks the contract's names", () => {
  it("sends service_feature_level (and the real server's name beside it)", async () => {
    const sandbox = await startSandbox();
    try {
      const raw = (await (await fetch(`${sandbox.url}/api/v1/server_settings`)).json()) as Record<
        string,
        unknown
      >;
      expect(raw.service_feature_level).toBe(raw.zulip_feature_level);
      expect(typeof raw.service_feature_level).toBe("number");
    } finally {
      await sandbox.close();
    }
  });
});
