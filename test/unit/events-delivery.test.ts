import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MockAgent } from "undici";
import { createClient } from "../../src/client/index.js";
import { Pacer } from "../../src/client/pacing.js";
import { createMemoryStore } from "../../src/storage/store.js";
import { DeliveryLedger } from "../../src/runtime/delivery/ledger.js";
import { ReplyLedger, reliableSend } from "../../src/runtime/delivery/outbox.js";
import { silentLogger } from "../../src/log/logger.js";

describe("DeliveryLedger", () => {
  it("claims each message once and moves the watermark past finished messages only", async () => {
    const store = createMemoryStore();
    const ledger = new DeliveryLedger({ store });
    expect(await ledger.load()).toBeUndefined();
    expect([ledger.claim(10), ledger.claim(11), ledger.claim(12), ledger.claim(11)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    await ledger.finish(11);
    // 10 still runs: nothing below it is known to be done.
    expect(await store.get("delivery")).toEqual({ lastHandledId: 9, handledAbove: [11] });
    await ledger.finish(10);
    expect(ledger.lastHandledId).toBe(11);
    await ledger.finish(12);
    expect(await store.get("delivery")).toEqual({ lastHandledId: 12, handledAbove: [] });
    expect(ledger.claim(5)).toBe(false);

    // A restart reads it back: handled messages stay handled, newer ones are claimable.
    const again = new DeliveryLedger({ store });
    expect(await again.load()).toBe(12);
    expect([again.claim(12), again.claim(13)]).toEqual([false, true]);
  });

  it("remembers messages finished above a running one across a restart", async () => {
    const store = createMemoryStore();
    const ledger = new DeliveryLedger({ store });
    await ledger.baseline(100);
    ledger.claim(101);
    ledger.claim(102);
    await ledger.finish(102);
    const again = new DeliveryLedger({ store });
    expect(await again.load()).toBe(100);
    expect([again.claim(101), again.claim(102)]).toEqual([true, false]);
  });
});

describe("ReplyLedger", () => {
  it("records the n-th reply per incoming message, bounded and persisted", async () => {
    const store = createMemoryStore();
    const ledger = new ReplyLedger(store, 2);
    await ledger.record(1, 0, [50]);
    await ledger.record(1, 1, [51, 52]);
    await ledger.record(2, 0, [53]);
    await ledger.record(3, 0, [54]);
    expect(ledger.size).toBe(2);
    expect(ledger.sent(1, 0)).toBeUndefined();
    const again = new ReplyLedger(store, 2);
    await again.load();
    expect([again.sent(2, 0), again.sent(3, 0), again.sent(3, 1)]).toEqual([[53], [54], undefined]);
  });
});

describe("Pacer", () => {
  it("spends the budget from X-RateLimit-Remaining and waits for X-RateLimit-Reset when it is gone", async () => {
    let now = 1_000_000;
    const waits: number[] = [];
    const pacer = new Pacer({ now: () => now, onWait: (_e, ms) => waits.push(ms) });
    expect(pacer.delay()).toBe(0);
    pacer.observe({ remaining: 2, reset: (now + 30) / 1000 });
    await pacer.beforeRequest("POST /messages");
    await pacer.beforeRequest("POST /messages");
    expect(pacer.delay()).toBe(30);
    await pacer.beforeRequest("POST /messages");
    expect(waits).toEqual([30]);
    // After the reset time the old numbers no longer apply.
    pacer.observe({ remaining: 0, reset: (now + 1000) / 1000 });
    now += 2000;
    expect(pacer.delay()).toBe(0);
  });

  it("never waits longer than maxWaitMs", () => {
    const pacer = new Pacer({ now: () => 0, maxWaitMs: 100 });
    pacer.observe({ remaining: 0, reset: 3600 });
    expect(pacer.delay()).toBe(100);
  });
});

describe("reliableSend over a MockAgent", () => {
  const SITE = "http://chat.test";
  const json = { headers: { "content-type": "application/json" } };
  let agent: MockAgent;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
  });
  afterEach(() => agent.close());

  const send = () =>
    reliableSend({
      api: createClient({ site: SITE, email: "bot@chat.test", apiKey: "K", dispatcher: agent }),
      me: () => 7,
      floor: () => 100,
      log: silentLogger(),
      backoff: { baseMs: 1, capMs: 2 },
    });
  const mine = (id: number, content: string) => ({
    id,
    type: "stream",
    stream_id: 1,
    display_recipient: "general",
    subject: "t",
    content,
    timestamp: 1,
    sender_id: 7,
    sender_email: "bot@chat.test",
    sender_full_name: "Bot",
    flags: [],
  });
  const listing = (messages: object[]) =>
    agent
      .get(SITE)
      .intercept({ path: /^\/api\/v1\/messages\?/, method: "GET" })
      .reply(200, { result: "success", msg: "", found_newest: true, messages }, json);
  const post = (status: number, body: object) =>
    agent
      .get(SITE)
      .intercept({ path: "/api/v1/messages", method: "POST" })
      .reply(status, body, json);
  const params = { type: "channel" as const, to: "general", topic: "t", content: "hello" };

  it("does not send again when the message arrived despite a 502", async () => {
    post(502, { result: "error", code: "BAD_GATEWAY", msg: "" });
    // An older identical message (below the floor) does not count; the new one does.
    listing([mine(90, "hello"), mine(101, "hello")]);
    expect(await send()(params)).toEqual({ id: 101 });
    expect(agent.pendingInterceptors()).toEqual([]);
  });

  it("sends again when the message did not arrive", async () => {
    post(503, { result: "error", code: "UNAVAILABLE", msg: "" });
    listing([mine(90, "hello")]);
    post(200, { result: "success", msg: "", id: 102 });
    expect(await send()(params)).toMatchObject({ id: 102 });
  });

  it("gives up on an error resending cannot fix", async () => {
    post(400, { result: "error", code: "STREAM_DOES_NOT_EXIST", msg: "no such channel" });
    await expect(send()(params)).rejects.toMatchObject({ code: "STREAM_DOES_NOT_EXIST" });
  });
});
