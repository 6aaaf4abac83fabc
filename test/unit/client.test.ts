import { describe, expect, it } from "vitest";
import {
  createClient,
  ApiError,
  InvalidArgumentError,
  NetworkError,
} from "../../src/client/index.js";
import { mockAgentEachTest } from "../helpers/mock-agent.js";

const SITE = "http://chat.test";

describe("createClient over a MockAgent", () => {
  const agent = mockAgentEachTest();

  const client = (retry = {}) =>
    createClient({
      site: SITE,
      email: "bot@chat.test",
      apiKey: "KEY123",
      dispatcher: agent(),
      retry: { baseMs: 1, capMs: 5, ...retry },
    });

  it("sends form fields, strings raw and everything else as JSON, with Basic auth", async () => {
    let seen: { body: string; headers: Record<string, string> } | undefined;
    agent()
      .get(SITE)
      .intercept({ path: "/api/v1/messages", method: "POST" })
      .reply(200, (opts) => {
        seen = { body: String(opts.body), headers: opts.headers as Record<string, string> };
        return { result: "success", msg: "", id: 42 };
      });
    const res = await client().messages.send({ type: "direct", to: [3, 4], content: "hi & bye" });
    expect(res.id).toBe(42);
    const form = new URLSearchParams(seen!.body);
    expect(form.get("type")).toBe("direct");
    expect(form.get("to")).toBe("[3,4]");
    expect(form.get("content")).toBe("hi & bye");
    expect(seen!.headers.authorization).toBe(
      `Basic ${Buffer.from("bot@chat.test:KEY123").toString("base64")}`,
    );
  });

  it("puts GET parameters in the query string, JSON-encoded", async () => {
    agent()
      .get(SITE)
      .intercept({ path: (p) => p.startsWith("/api/v1/users?"), method: "GET" })
      .reply(200, (opts) => {
        const query = new URL(`${SITE}${opts.path}`).searchParams;
        expect(query.get("user_ids")).toBe("[1,2]");
        expect(query.get("client_extavatar")).toBe("false");
        return { result: "success", msg: "", members: [] };
      });
    await expect(
      client().users.list({ user_ids: [1, 2], client_extavatar: false }),
    ).resolves.toMatchObject({ members: [] });
  });

  it("turns error bodies into ApiError with code, status, msg and extra keys", async () => {
    agent().get(SITE).intercept({ path: "/api/v1/messages", method: "POST" }).reply(400, {
      result: "error",
      msg: "Stream 'x' does not exist",
      code: "STREAM_DOES_NOT_EXIST",
      stream: "x",
    });
    const error = await client()
      .messages.send({ type: "channel", to: "x", topic: "t", content: "c" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: "STREAM_DOES_NOT_EXIST",
      status: 400,
      extra: { stream: "x" },
      endpoint: "POST /messages",
    });
  });

  it("validates arguments before sending and names the bad one", async () => {
    const error = await client()
      .messages.send({ type: "sideways" as "direct", to: [1], content: "c" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).parameter).toBe("type");
  });

  it("waits out RATE_LIMIT_HIT and retries, even for sends", async () => {
    const pool = agent().get(SITE);
    pool
      .intercept({ path: "/api/v1/messages", method: "POST" })
      .reply(429, { result: "error", msg: "", code: "RATE_LIMIT_HIT", "retry-after": 0.01 });
    pool
      .intercept({ path: "/api/v1/messages", method: "POST" })
      .reply(200, { result: "success", msg: "", id: 7 });
    await expect(
      client().messages.send({ type: "channel", to: "g", topic: "t", content: "c" }),
    ).resolves.toMatchObject({ id: 7 });
  });

  it("retries 5xx for GET but not for POST /messages", async () => {
    const pool = agent().get(SITE);
    pool
      .intercept({ path: "/api/v1/users/me", method: "GET" })
      .reply(502, { result: "error", msg: "bad gateway" });
    pool.intercept({ path: "/api/v1/users/me", method: "GET" }).reply(200, {
      result: "success",
      msg: "",
      user_id: 1,
      email: "b",
      delivery_email: "b",
      full_name: "B",
      is_admin: false,
      is_owner: false,
      is_guest: false,
      is_bot: true,
      is_active: true,
      role: 400,
      timezone: "",
      date_joined: "2020-01-01T00:00:00Z",
    });
    await expect(client().users.me()).resolves.toMatchObject({ user_id: 1 });

    pool
      .intercept({ path: "/api/v1/messages", method: "POST" })
      .reply(503, { result: "error", msg: "unavailable" });
    const error = await client()
      .messages.send({ type: "channel", to: "g", topic: "t", content: "c" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 503 });
  });

  it("reports a non-JSON body as a NetworkError with the status", async () => {
    agent()
      .get(SITE)
      .intercept({ path: "/api/v1/users/me", method: "GET" })
      .reply(502, "<html>bad gateway</html>")
      .persist();
    const error = await client({ maxAttempts: 1 })
      .users.me()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).status).toBe(502);
  });

  it("takes the long-poll timeout from the registration response", async () => {
    agent().get(SITE).intercept({ path: "/api/v1/register", method: "POST" }).reply(200, {
      result: "success",
      msg: "",
      queue_id: "q",
      last_event_id: -1,
      zulip_feature_level: 400,
      event_queue_longpoll_timeout_seconds: 33,
    });
    const c = client();
    expect(c.longPollTimeoutMs).toBe(90_000);
    await c.events.register({});
    expect(c.longPollTimeoutMs).toBe(33_000);
  });

  it("aborts a request when the caller's signal fires", async () => {
    agent()
      .get(SITE)
      .intercept({ path: (p) => p.startsWith("/api/v1/events"), method: "GET" })
      .reply(200, { result: "success", msg: "", events: [] })
      .delay(5_000);
    const controller = new AbortController();
    const pending = client().events.get({ queue_id: "q" }, { signal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });

  it("never shows the API key in an error", async () => {
    agent()
      .get(SITE)
      .intercept({ path: "/api/v1/users/me", method: "GET" })
      .reply(401, { result: "error", msg: "Invalid API key", code: "INVALID_API_KEY" });
    const error = (await client()
      .users.me()
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("INVALID_API_KEY");
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain("KEY123");
  });
});
