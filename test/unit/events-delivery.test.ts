import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MockAgent } from "undici";
import { createClient } from "../../src/client/index.js";
import { Pacer } from "../../src/client/pacing.js";
import { createMemoryStore } from "../../src/state/key-value/store.js";
import { DeliveryLedger } from "../../src/inbound/ledger.js";
import { KeyValueDeliveryStore } from "../../src/state/delivery/key-value.js";
import { reliableSend } from "../../src/outbound/outbox.js";
import { ReplyBook } from "../../src/state/delivery/records.js";
import { silentLogger } from "../../src/log/logger.js";

describe("DeliveryLedger", () => {
  const over = (kv = createMemoryStore()) => new KeyValueDeliveryStore(kv);
  const restored = async (store: KeyValueDeliveryStore) => {
    const ledger = new DeliveryLedger({ store });
    return { ledger, last: ledger.restore((await store.load()).watermark) };
  };

  it("claims each message once and moves the watermark past finished messages only", async () => {
    const kv = createMemoryStore();
    const { ledger, last } = await restored(over(kv));
    expect(last).toBeUndefined();
    expect([ledger.claim(10), ledger.claim(11), ledger.claim(12), ledger.claim(11)]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    await ledger.finish(11);
    // 10 still runs: nothing below it is known to be done.
    expect(await kv.get("delivery")).toEqual({ lastHandledId: 9, handledAbove: [11] });
    await ledger.finish(10);
    expect(ledger.lastHandledId).toBe(11);
    await ledger.finish(12);
    expect(await kv.get("delivery")).toEqual({ lastHandledId: 12, handledAbove: [] });
    expect(ledger.claim(5)).toBe(false);

    // A restart reads it back: handled messages stay handled, newer ones are claimable.
    const again = await restored(over(kv));
    expect(again.last).toBe(12);
    expect([again.ledger.claim(12), again.ledger.claim(13)]).toEqual([false, true]);
  });

  it("remembers messages finished above a running one across a restart", async () => {
    const kv = createMemoryStore();
    const { ledger } = await restored(over(kv));
    await ledger.baseline(100);
    ledger.claim(101);
    ledger.claim(102);
    await ledger.finish(102);
    const again = await restored(over(kv));
    expect(again.last).toBe(100);
    expect([again.ledger.claim(101), again.ledger.claim(102)]).toEqual([true, false]);
  });

  it("keeps the watermark right when messages finish out of order", async () => {
    const { ledger } = await restored(over());
    await ledger.baseline(0);
    for (let id = 1; id <= 50; id++) ledger.claim(id);
    const order = Array.from({ length: 50 }, (_, i) => 50 - i);
    for (const id of order) {
      await ledger.finish(id);
      expect(ledger.lastHandledId).toBe(id === 1 ? 50 : 0);
    }
  });
});

describe("ReplyBook", () => {
  it("records intents and outcomes per incoming message, forgetting the oldest past capacity", () => {
    const forgotten: number[] = [];
    const book = new ReplyBook(2, (id) => forgotten.push(id));
    const params = { type: "channel" as const, to: 1, topic: "t", content: "x" };
    book.intend({ incomingId: 1, index: 0, params, floor: 0, at: 0 });
    book.sent(1, 0, [50]);
    book.sent(1, 1, [51, 52]);
    book.sent(2, 0, [53]);
    book.intend({ incomingId: 3, index: 0, params, floor: 0, at: 0 });
    expect(book.size).toBe(2);
    expect(forgotten).toEqual([1]);
    expect(book.get(1, 0)).toBeUndefined();
    expect(book.get(2, 0)?.ids).toEqual([53]);
    expect(book.get(3, 0)?.intent?.incomingId).toBe(3);
    expect(book.get(3, 0)?.ids).toBeUndefined();
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
      retry: { baseMs: 1, capMs: 2 },
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
