import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type CallEvent } from "topicbot/client";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { createBotMetrics, observeCalls } from "../../src/metrics/bot.js";
import { parsePrometheus } from "../helpers/prometheus.js";

describe("the client's onCall observer", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());

  it("sees every attempt by endpoint template and status, and each rate-limit wait", async () => {
    const events: CallEvent[] = [];
    const metrics = createBotMetrics();
    const count = observeCalls(metrics);
    const client = createClient({
      site: sandbox.url,
      email: sandbox.bot.email,
      apiKey: sandbox.bot.apiKey,
      onCall: (event) => {
        events.push(event);
        count(event);
      },
    });
    try {
      sandbox.faults.add({
        route: "POST /messages",
        status: 429,
        code: "RATE_LIMIT_HIT",
        extra: { "retry-after": 0.05 },
        times: 1,
      });
      const { id } = await client.messages.send({
        type: "channel",
        to: "general",
        topic: "t",
        content: "hi",
      });
      await client.messages.get({ message_id: id });
      expect(
        events.map((e) =>
          e.type === "response" ? `${e.endpoint} ${e.status}` : `wait ${e.endpoint}`,
        ),
      ).toEqual([
        "POST /messages 429",
        "wait POST /messages",
        "POST /messages 200",
        "GET /messages/{message_id} 200",
      ]);
      const wait = events[1] as Extract<CallEvent, { type: "rateLimitWait" }>;
      expect(wait.ms).toBeGreaterThanOrEqual(50);
      expect(events.every((e) => e.ms >= 0)).toBe(true);

      const families = parsePrometheus(await metrics.registry.expose());
      expect(families.get("topicbot_rate_limit_waits_total")!.samples).toEqual([
        {
          name: "topicbot_rate_limit_waits_total",
          labels: { endpoint: "POST /messages" },
          value: 1,
        },
      ]);
      expect(
        families
          .get("topicbot_api_calls_total")!
          .samples.map((s) => [s.labels.endpoint, s.labels.status, s.value]),
      ).toEqual([
        ["POST /messages", "429", 1],
        ["POST /messages", "200", 1],
        ["GET /messages/{message_id}", "200", 1],
      ]);
    } finally {
      await client.close();
    }
  });

  it("reports a failure without an answer as network", async () => {
    const events: CallEvent[] = [];
    const client = createClient({
      site: "http://127.0.0.1:9",
      email: "bot@example.com",
      apiKey: "abcdefgh",
      retry: { maxAttempts: 1 },
      onCall: (event) => events.push(event),
    });
    await expect(client.users.me()).rejects.toThrow();
    await client.close();
    expect(events).toMatchObject([
      { type: "response", endpoint: "GET /users/me", status: "network" },
    ]);
  });
});
