// Chaos: thousands of commands from 20 users in 10 topics while API calls fail and the queue keeps expiring.
import { describe, expect, it } from "vitest";
import type { FaultRule } from "topicbot/sandbox";
import { createTestBot } from "topicbot/testing";
import {
  LOAD_CONFIG,
  addUsers,
  botReplies,
  echoPlugin,
  expectEachAnsweredOnceInOrder,
  grownHandles,
  openHandles,
  sendSurely,
  waitUntil,
} from "./helpers.js";

const USERS = 20;
const TOPICS = 10;

interface Scenario {
  commands: number;
  /** The faults, given the bot's email (for rules that only hit the bot's own requests). */
  faults: (botEmail: string) => FaultRule[];
  /** Expire the bot's queue this often; never when absent. */
  expireEveryMs?: number;
  timeoutMs: number;
}

/**
 * Sends `commands` `!echo` commands, 20 users in 10 topics at once, under the given faults; then checks
 * each was answered exactly once in per-topic order, that no promise rejection went unhandled, and
 * that closing everything leaves no more sockets, servers or timers open than before.
 */
async function run(scenario: Scenario): Promise<void> {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown): void => {
    rejections.push(reason);
  };
  process.on("unhandledRejection", onRejection);
  const before = openHandles();
  const t = await createTestBot({
    plugins: [echoPlugin],
    config: LOAD_CONFIG,
    sandbox: { heartbeatSeconds: 1 },
  });
  const { sandbox } = t;
  const users = addUsers(sandbox, USERS);
  let expiries = 0;
  let expirer: NodeJS.Timeout | undefined;
  const commands: { id: number; topic: string }[] = [];
  try {
    const faults = scenario.faults(sandbox.bot.email);
    for (const rule of faults) sandbox.faults.add(rule);
    if (scenario.expireEveryMs)
      expirer = setInterval(() => {
        expiries += sandbox.expireQueues({ userId: sandbox.bot.userId }).length;
      }, scenario.expireEveryMs);

    await Promise.all(
      users.map(async (client, u) => {
        for (let i = u; i < scenario.commands; i += USERS) {
          const topic = `chaos ${i % TOPICS}`;
          const id = await sendSurely(client, topic, `!echo ${i}`);
          commands.push({ id, topic });
        }
      }),
    );
    const answered = () => botReplies(sandbox).filter((r) => !Number.isNaN(r.answers)).length;
    await waitUntil(
      () => answered() >= scenario.commands,
      scenario.timeoutMs,
      () => {
        const others = botReplies(sandbox).length - answered();
        const faults = [...sandbox.faults.hits.values()].reduce((a, b) => a + b, 0);
        const counts = new Map<string, number>();
        for (const line of t.errors()) {
          const kind = line.split(":")[0]!;
          counts.set(kind, (counts.get(kind) ?? 0) + 1);
        }
        const warnings = [...counts].map(([kind, n]) => `${n} x ${kind}`).join("\n  ");
        return `${answered()} of ${scenario.commands} replies and ${others} other bot messages, after ${expiries} queue expiries and ${faults} injected faults; ${t.bot.pending} messages pending; warnings and errors:\n  ${warnings}`;
      },
    );
    // Anything answered twice would arrive a moment later: give it that moment.
    await new Promise((resolve) => setTimeout(resolve, 500));
    clearInterval(expirer);
    sandbox.faults.clear();

    expect(commands).toHaveLength(scenario.commands);
    if (scenario.expireEveryMs)
      expect(expiries, "queue expiries during the run").toBeGreaterThan(0);
    if (faults.length > 0)
      expect(
        [...sandbox.faults.hits.values()].some((n) => n > 0),
        "faults injected",
      ).toBe(true);
    expectEachAnsweredOnceInOrder(sandbox, commands);
    expect(
      t.errors().filter((line) => line.startsWith("catch-up window exceeded")),
      "catch-up windows exceeded",
    ).toEqual([]);
  } finally {
    clearInterval(expirer);
    await Promise.all(users.map((c) => c.close()));
    await t.close();
    process.off("unhandledRejection", onRejection);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(grownHandles(before, openHandles()), "handles left open after close").toEqual({});
  expect(rejections).toEqual([]);
}

/** 429 with a short `retry-after` in the body (the client waits it out, for any request). */
const rateLimited = (probability: number, route?: string): FaultRule => ({
  route,
  status: 429,
  code: "RATE_LIMIT_HIT",
  extra: { "retry-after": 0.2 },
  probability,
});

describe("chaos: polling faults and rate limits under load", () => {
  it("1,000 commands while 5% of polls fail (5xx, dropped, 429) and 2% of sends are rate limited", async () => {
    await run({
      commands: 1_000,
      faults: () => [
        { route: "GET /events", status: 502, code: "BAD_GATEWAY", probability: 0.02 },
        { route: "GET /events", drop: true, probability: 0.015 },
        rateLimited(0.015, "GET /events"),
        rateLimited(0.02, "POST /messages"),
      ],
      timeoutMs: 60_000,
    });
  }, 120_000);
});

describe("chaos: every kind of fault and queue expiry", () => {
  it("2,000 commands while 5% of all API calls fail and the queue expires every 2 s", async () => {
    await run({
      commands: 2_000,
      // About 5% of every API call, the bot's and the senders' alike, fails one of three ways;
      // 1% of polls are answered but the answer is lost; and about 2% of the bot's replies are
      // stored but their answer is lost (the hardest case: the bot cannot tell whether its reply
      // went out).
      faults: (bot) => [
        { status: 503, code: "BAD_GATEWAY", probability: 0.02 },
        { drop: true, probability: 0.015 },
        rateLimited(0.015),
        { route: "GET /events", after: true, drop: true, probability: 0.01 },
        { route: "POST /messages", user: bot, after: true, drop: true, probability: 0.01 },
        {
          route: "POST /messages",
          user: bot,
          after: true,
          status: 502,
          code: "BAD_GATEWAY",
          probability: 0.01,
        },
      ],
      expireEveryMs: 2_000,
      timeoutMs: 90_000,
    });
  }, 150_000);
});
