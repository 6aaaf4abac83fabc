import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { createClient } from "topicbot/client";
import { ManualClock, startSandbox, type Sandbox } from "topicbot/sandbox";

describe("sandbox rate limiting", () => {
  const clock = new ManualClock(new Date("2030-01-01T00:00:00Z"));
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ clock, rateLimit: { requests: 3, windowSeconds: 10 } });
  });
  afterAll(() => sandbox.close());

  const me = async () => {
    const res = await request(`${sandbox.url}/api/v1/users/me`, {
      headers: {
        authorization: `Basic ${Buffer.from(`${sandbox.user("mia").email}:${sandbox.user("mia").apiKey}`).toString("base64")}`,
      },
    });
    return {
      status: res.statusCode,
      headers: res.headers,
      body: (await res.body.json()) as Record<string, unknown>,
    };
  };

  it("sends X-RateLimit headers, then 429 RATE_LIMIT_HIT with retry-after in body and header", async () => {
    const first = await me();
    expect(first.status).toBe(200);
    expect(first.headers["x-ratelimit-limit"]).toBe("3");
    expect(first.headers["x-ratelimit-remaining"]).toBe("2");
    expect(Number(first.headers["x-ratelimit-reset"])).toBe(Math.ceil(clock.now() / 1000) + 10);
    await me();
    await me();
    const limited = await me();
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({
      result: "error",
      code: "RATE_LIMIT_HIT",
      "retry-after": 10,
    });
    expect(limited.headers["retry-after"]).toBe("10");
    expect(limited.headers["x-ratelimit-remaining"]).toBe("0");
    clock.advance(10_001);
    expect((await me()).status).toBe(200);
  });

  it("says, as the server, when no limit applies any more (the newest call's window), and counts the event poll apart", async () => {
    const own = new ManualClock(new Date("2030-01-01T00:00:00.500Z"));
    const limited = await startSandbox({
      clock: own,
      rateLimit: { requests: 3, windowSeconds: 10 },
    });
    try {
      const mia = limited.user("mia");
      const auth = `Basic ${Buffer.from(`${mia.email}:${mia.apiKey}`).toString("base64")}`;
      const get = async (path: string) => {
        const res = await request(`${limited.url}/api/v1${path}`, {
          headers: { authorization: auth },
        });
        await res.body.dump();
        return res.headers;
      };
      const start = Math.floor(own.now() / 1000);
      expect(Number((await get("/users/me"))["x-ratelimit-reset"])).toBe(start + 10);
      own.advance(2_000);
      const second = await get("/users/me");
      // Truncated to whole seconds, and 12 s from the first call, not when it leaves the window.
      expect(Number(second["x-ratelimit-reset"])).toBe(start + 12);
      expect(second["x-ratelimit-remaining"]).toBe("1");
      // The event poll (an unknown queue here: it answers at once) has a budget of its own.
      const queue = await get("/users/me");
      expect(queue["x-ratelimit-remaining"]).toBe("0");
      const poll = await get("/events?queue_id=none&last_event_id=-1&dont_block=true");
      expect(poll["x-ratelimit-remaining"]).toBe("2");
    } finally {
      await limited.close();
    }
  });

  it("limits per user, and is off by default", async () => {
    const bot = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
    });
    await expect(bot.users.me()).resolves.toMatchObject({ user_id: sandbox.bot.userId });
    expect(bot.rateLimit.limit).toBe(3);
    await bot.close();
    const plain = await startSandbox();
    try {
      const res = await request(`${plain.url}/api/v1/server_settings`);
      await res.body.dump();
      expect(res.headers["x-ratelimit-limit"]).toBeUndefined();
      expect(res.statusCode).toBe(200);
    } finally {
      await plain.close();
    }
  });
});
