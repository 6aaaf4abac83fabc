// /healthz tells the truth about polling: ok, degraded while polls fail (for how long), unhealthy once delivery is stuck.
import { afterEach, expect, it } from "vitest";
import { createBot, type Bot } from "topicbot";
import { startSandbox, type Sandbox } from "topicbot/sandbox";
import { pollHealth } from "../../src/inbound/poll-health.js";

/** Waits (bounded) until `check` resolves true. */
async function until(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let sandbox: Sandbox | undefined;
let bot: Bot | undefined;
afterEach(async () => {
  await bot?.stop();
  await sandbox?.close();
  bot = sandbox = undefined;
});

it("says degraded with how long while polls fail, ok again after (old code: ok all along)", async () => {
  sandbox = await startSandbox({ heartbeatSeconds: 0.2 });
  bot = createBot({
    server: { site: sandbox.url, email: sandbox.bot.email, apiKey: sandbox.bot.apiKey },
    plugins: [],
    handleSignals: false,
    http: { port: 0 },
    eventLoop: { backoff: { baseMs: 50, capMs: 200 } },
  });
  await bot.start();
  const health = async (): Promise<Record<string, unknown>> => {
    const res = await fetch(`${bot!.webhookUrl}/healthz`);
    return { code: res.status, ...((await res.json()) as Record<string, unknown>) };
  };
  expect(await health()).toMatchObject({ code: 200, status: "ok" });

  const fault = sandbox.faults.add({ route: "GET /events", status: 502, code: "BAD_GATEWAY" });
  let seen: Record<string, unknown> = {};
  await until(
    async () => {
      seen = await health();
      return seen.status === "degraded";
    },
    "/healthz degraded",
    10_000,
  );
  expect(seen).toMatchObject({ code: 200, degraded: ["polling"], queueConnected: true });
  expect(seen.polling).toMatchObject({
    failures: expect.any(Number),
    failingForSeconds: expect.any(Number),
  });
  expect(String((seen.polling as { lastError: string }).lastError)).toContain("502");

  sandbox.faults.remove(fault);
  await until(async () => (await health()).status === "ok", "/healthz ok again", 10_000);
  expect((await health()).polling).toBeUndefined();
}, 30_000);

it("is unhealthy once polls have failed as long as a queue outlives, or handlers hold a poll that long", () => {
  const state = { failingSince: 0, failures: 9, lastError: "x", handingOverSince: undefined };
  expect(pollHealth(state, 20_000)).toMatchObject({
    degraded: true,
    stuck: false,
    report: { failingForSeconds: 20 },
  });
  expect(pollHealth(state, 300_000).stuck).toBe(true);
  const handling = {
    failingSince: undefined,
    failures: 0,
    lastError: undefined,
    handingOverSince: 0,
  };
  expect(pollHealth(handling, 60_000)).toEqual({
    degraded: false,
    stuck: false,
    report: undefined,
  });
  expect(pollHealth(handling, 300_000)).toMatchObject({
    stuck: true,
    report: { handlingForSeconds: 300 },
  });
});
