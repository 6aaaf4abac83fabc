import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { request } from "undici";
import { createClient, type ApiClient, ApiError, NetworkError } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";

describe("sandbox fault injection (JS API and /sandbox/* control routes)", () => {
  let sandbox: Sandbox;
  let client: ApiClient;
  beforeAll(async () => {
    sandbox = await startSandbox({ heartbeatSeconds: 0.1 });
    client = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
      retry: { baseMs: 1, capMs: 5 },
    });
  });
  afterAll(async () => {
    await client.close();
    await sandbox.close();
  });
  beforeEach(() => sandbox.faults.clear());

  const control = async (method: string, path: string, body?: unknown) => {
    const res = await request(`${sandbox.url}${path}`, {
      method: method as "POST",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
  };

  it("answers a route with an injected error status and code, a given number of times", async () => {
    const id = sandbox.faults.add({
      route: "GET /users/me",
      status: 502,
      code: "BAD_GATEWAY",
      times: 1,
    });
    const error = await client.users.me({}, { retry: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 502, code: "BAD_GATEWAY" });
    expect(sandbox.faults.hits.get(id)).toBe(1);
    await expect(client.users.me()).resolves.toMatchObject({ user_id: sandbox.bot.userId });
  });

  it("the client retries a safe request through injected 5xx answers", async () => {
    sandbox.faults.add({ route: "GET /users/me", status: 503, times: 2 });
    await expect(client.users.me()).resolves.toMatchObject({ user_id: sandbox.bot.userId });
  });

  it("never retries POST /messages after a 5xx unless asked", async () => {
    sandbox.faults.add({ route: "POST /messages", status: 500, times: 1 });
    const before = sandbox.realm.messages.length;
    const error = await client.messages
      .send({ type: "channel", to: "general", topic: "f", content: "once" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500 });
    expect(sandbox.realm.messages.length).toBe(before);
    sandbox.faults.add({ route: "POST /messages", status: 500, times: 1 });
    await client.messages.send(
      { type: "channel", to: "general", topic: "f", content: "twice" },
      { retryUnsafe: true },
    );
    expect(sandbox.realm.messages.length).toBe(before + 1);
  });

  it("drops the connection", async () => {
    sandbox.faults.add({ route: "GET /users/me", drop: true, times: 1 });
    const error = await client.users.me({}, { retry: false }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
  });

  it("after: the route runs and its effect stays, then the answer is dropped or replaced", async () => {
    const before = sandbox.realm.messages.length;
    sandbox.faults.add({ route: "POST /messages", drop: true, after: true, times: 1 });
    const dropped = await client.messages
      .send({ type: "channel", to: "general", topic: "f", content: "stored, answer lost" })
      .catch((e: unknown) => e);
    expect(dropped).toBeInstanceOf(NetworkError);
    sandbox.faults.add({
      route: "POST /messages",
      status: 502,
      code: "BAD_GATEWAY",
      after: true,
      times: 1,
    });
    const failed = await client.messages
      .send({ type: "channel", to: "general", topic: "f", content: "stored, 502" })
      .catch((e: unknown) => e);
    expect(failed).toMatchObject({ status: 502, code: "BAD_GATEWAY" });
    expect(sandbox.realm.messages.slice(before).map((m) => m.content)).toEqual([
      "stored, answer lost",
      "stored, 502",
    ]);
  });

  it("user: a rule applies only to requests authenticated as that email", async () => {
    const mia = sandbox.user("mia");
    const asMia = createClient({ site: sandbox.url, email: mia.email, apiKey: mia.apiKey });
    try {
      const id = sandbox.faults.add({
        route: "GET /users/me",
        status: 503,
        user: mia.email.toUpperCase(),
      });
      await expect(client.users.me({}, { retry: false })).resolves.toMatchObject({
        user_id: sandbox.bot.userId,
      });
      await expect(asMia.users.me({}, { retry: false })).rejects.toMatchObject({ status: 503 });
      expect(sandbox.faults.hits.get(id)).toBe(1);
    } finally {
      await asMia.close();
    }
  });

  it("delays an answer", async () => {
    sandbox.faults.add({ route: "GET /users/me", delayMs: 150, times: 1 });
    const started = Date.now();
    await client.users.me();
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    sandbox.faults.add({ route: "GET /users/me", delayMs: 100, times: 1 });
    await expect(client.users.me({}, { timeoutMs: 20, retry: false })).rejects.toBeInstanceOf(
      NetworkError,
    );
  });

  it("carries retry-after for injected rate limits, which the client waits out", async () => {
    sandbox.faults.add({
      route: "GET /users/me",
      status: 429,
      code: "RATE_LIMIT_HIT",
      extra: { "retry-after": 0.05 },
      times: 1,
    });
    await expect(client.users.me()).resolves.toMatchObject({ user_id: sandbox.bot.userId });
  });

  it("expires queues on demand: by JS API and by control route", async () => {
    const a = await client.events.register({});
    expect(sandbox.expireQueues({ queueId: a.queue_id! })).toEqual([a.queue_id]);
    await expect(
      client.events.get({ queue_id: a.queue_id!, dont_block: true }),
    ).rejects.toMatchObject({
      code: "BAD_EVENT_QUEUE_ID",
    });
    const b = await client.events.register({});
    const res = await control("POST", "/sandbox/queues/expire", { user_id: sandbox.bot.userId });
    expect(res.body.expired).toEqual([b.queue_id]);
    await expect(
      client.events.get({ queue_id: b.queue_id!, dont_block: true }),
    ).rejects.toMatchObject({
      code: "BAD_EVENT_QUEUE_ID",
    });
  });

  it("applies a rule with a probability to about that share of requests", async () => {
    const id = sandbox.faults.add({ route: "GET /users/me", status: 503, probability: 0.25 });
    let failed = 0;
    for (let i = 0; i < 200; i++) await client.users.me({}, { retry: false }).catch(() => failed++);
    expect(sandbox.faults.hits.get(id)).toBe(failed);
    // 200 tries at 25%: 50 expected; outside 20..80 has odds below one in a million.
    expect(failed).toBeGreaterThan(20);
    expect(failed).toBeLessThan(80);
    sandbox.faults.clear();
    const never = sandbox.faults.add({ route: "GET /users/me", status: 503, probability: 0 });
    await client.users.me({}, { retry: false });
    expect(sandbox.faults.hits.get(never)).toBe(0);
  });

  it("manages faults over HTTP: add, list, remove, clear; bad input is a clear 400", async () => {
    const added = await control("POST", "/sandbox/faults", {
      route: "GET /users/me",
      status: 500,
      code: "OOPS",
    });
    expect(added.body.id).toEqual(expect.any(Number));
    const listed = await control("GET", "/sandbox/faults");
    expect(listed.body.faults).toEqual([
      expect.objectContaining({ route: "GET /users/me", status: 500 }),
    ]);
    await expect(client.users.me({}, { retry: false })).rejects.toMatchObject({ code: "OOPS" });
    expect((await control("DELETE", `/sandbox/faults/${String(added.body.id)}`)).status).toBe(200);
    await expect(client.users.me()).resolves.toMatchObject({ user_id: sandbox.bot.userId });
    const bad = await control("POST", "/sandbox/faults", { status: "soon" });
    expect(bad.status).toBe(400);
    expect(String(bad.body.msg)).toContain("status");
    expect((await control("POST", "/sandbox/clock/advance", { ms: 5 })).status).toBe(400);
  });
});
