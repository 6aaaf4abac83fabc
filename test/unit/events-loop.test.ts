import { createHook } from "node:async_hooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MockAgent } from "undici";
import { createClient } from "../../src/client/index.js";
import { EventQueue, PollTimeoutError, recoveryFor } from "../../src/inbound/index.js";
import { ApiError, NetworkError } from "../../src/client/errors.js";
import type { AnyEvent } from "../../src/api/events.js";
import type { ApiClient } from "../../src/client/client.js";
import type { ArrayStream } from "../../src/client/json-array-stream.js";

const SITE = "http://chat.test";
const json = { headers: { "content-type": "application/json" } };
const ok = (body: Record<string, unknown>) => ({ result: "success", msg: "", ...body });

describe("the event loop over undici's MockAgent", () => {
  let agent: MockAgent;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
  });
  afterEach(() => agent.close());

  const client = () =>
    createClient({ site: SITE, email: "bot@chat.test", apiKey: "KEY", dispatcher: agent });
  const register = (queueId: string) =>
    agent
      .get(SITE)
      .intercept({ path: "/api/v1/register", method: "POST" })
      .reply(200, ok({ queue_id: queueId, last_event_id: -1, zulip_feature_level: 400 }), json);
  const poll = (queueId: string, lastEventId: number, status: number, body: object) =>
    agent
      .get(SITE)
      .intercept({
        path: `/api/v1/events?queue_id=${encodeURIComponent(queueId)}&last_event_id=${lastEventId}`,
        method: "GET",
      })
      .reply(status, body, json);

  it("acknowledges events, skips heartbeats, re-registers on BAD_EVENT_QUEUE_ID and calls onRegistered", async () => {
    register("q1");
    poll(
      "q1",
      -1,
      200,
      ok({
        events: [
          { id: 0, type: "heartbeat" },
          { id: 1, type: "custom" },
        ],
      }),
    );
    poll("q1", 1, 400, {
      result: "error",
      code: "BAD_EVENT_QUEUE_ID",
      msg: "Bad event queue ID: q1",
      queue_id: "q1",
    });
    register("q2");
    poll("q2", -1, 200, ok({ events: [{ id: 0, type: "custom" }] }));
    // Further polls wait until the test stops the loop.
    agent
      .get(SITE)
      .intercept({ path: /^\/api\/v1\/events\?queue_id=q2&last_event_id=0/, method: "GET" })
      .reply(200, ok({ events: [] }), json)
      .delay(10_000)
      .persist();
    agent
      .get(SITE)
      .intercept({ path: "/api/v1/events", method: "DELETE", body: "queue_id=q2" })
      .reply(200, ok({}), json);

    const queue = new EventQueue({ client: client(), backoff: { baseMs: 1, capMs: 2 } });
    const batches: AnyEvent[][] = [];
    const registered: { queue: string | null; replaced: boolean }[] = [];
    let done!: () => void;
    const secondBatch = new Promise<void>((resolve) => (done = resolve));
    await queue.start(
      (events) => {
        batches.push(events);
        if (batches.length === 2) done();
      },
      {
        onRegistered: (registration, { replaced }) =>
          void registered.push({ queue: registration.queue_id, replaced }),
      },
    );
    await secondBatch;
    expect(batches).toEqual([[{ id: 1, type: "custom" }], [{ id: 0, type: "custom" }]]);
    expect(registered).toEqual([
      { queue: "q1", replaced: false },
      { queue: "q2", replaced: true },
    ]);
    expect(queue.registrations).toBe(2);
    await queue.stop();
    expect(queue.queueId).toBeNull();
    // The queue was deleted on stop.
    expect(agent.pendingInterceptors().filter((i) => i.method === "DELETE")).toEqual([]);
  });

  it("ends on a fatal error, calling onFatal once, without retrying", async () => {
    register("q1");
    poll("q1", -1, 401, {
      result: "error",
      code: "USER_DEACTIVATED",
      msg: "Account is deactivated",
    });
    const queue = new EventQueue({ client: client(), backoff: { baseMs: 1, capMs: 2 } });
    const fatal = new Promise<unknown>((resolve) => {
      void queue.start(() => undefined, { onFatal: resolve });
    });
    const error = await fatal;
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("USER_DEACTIVATED");
    await queue.halt();
  });

  it("abandons a poll the watchdog finds hanging, and polls again", async () => {
    register("q1");
    agent
      .get(SITE)
      .intercept({ path: "/api/v1/events?queue_id=q1&last_event_id=-1", method: "GET" })
      .reply(200, ok({ events: [] }), json)
      .delay(10_000);
    poll("q1", -1, 200, ok({ events: [{ id: 3, type: "custom" }] }));
    const queue = new EventQueue({
      client: client(),
      watchdogMs: 50,
      backoff: { baseMs: 1, capMs: 2 },
    });
    const events = await new Promise<AnyEvent[]>((resolve) => {
      void queue.start(resolve);
    });
    expect(events).toEqual([{ id: 3, type: "custom" }]);
    await queue.halt();
  });

  it("decides recovery by error class", () => {
    const api = (code: string, status: number, extra = {}) =>
      new ApiError({ code, status, msg: "", extra, endpoint: "GET /events" });
    expect(recoveryFor(api("INVALID_API_KEY", 401))).toEqual({ action: "fatal" });
    expect(recoveryFor(api("REALM_DEACTIVATED", 401))).toEqual({ action: "fatal" });
    expect(recoveryFor(api("BAD_EVENT_QUEUE_ID", 400))).toEqual({ action: "reregister" });
    expect(
      recoveryFor(
        new ApiError({
          code: "BAD_REQUEST",
          status: 400,
          msg: "Bad event queue id: 1:2",
          extra: {},
          endpoint: "GET /events",
        }),
      ),
    ).toEqual({ action: "reregister" });
    expect(recoveryFor(api("RATE_LIMIT_HIT", 429, { "retry-after": 1.5 }))).toEqual({
      action: "wait",
      ms: 1500,
    });
    expect(recoveryFor(api("INTERNAL", 502))).toEqual({ action: "backoff" });
    expect(recoveryFor(new NetworkError("reset", { endpoint: "GET /events" }))).toEqual({
      action: "backoff",
    });
    expect(recoveryFor(new PollTimeoutError(10))).toEqual({ action: "backoff" });
  });
});

/** A client with only the calls the queue makes, its polls answered by `get`. */
function queueClient(
  get: (params: unknown, opts: { signal: AbortSignal; stream: ArrayStream }) => Promise<unknown>,
): ApiClient {
  const client = {
    email: "bot@chat.test",
    longPollTimeoutMs: 90_000,
    events: {
      register: async () => ({
        result: "success",
        msg: "",
        queue_id: "q1",
        last_event_id: -1,
        zulip_feature_level: 400,
      }),
      get,
      deleteQueue: async () => ({ result: "success", msg: "" }),
    },
  };
  return client as unknown as ApiClient;
}

describe("the poll watchdog", () => {
  /** A client whose polls `answer` decides: each gets the poll's number and its options. */
  function fakeClient(
    answer: (n: number, opts: { signal: AbortSignal; stream: ArrayStream }) => Promise<void>,
  ): ApiClient {
    let polls = 0;
    return queueClient(async (_, opts) => {
      await answer(polls++, opts);
      return { result: "success", msg: "", events: [] };
    });
  }
  /** Resolves when `signal` aborts, with its reason. */
  const aborted = (signal: AbortSignal) =>
    new Promise<unknown>((resolve) =>
      signal.addEventListener("abort", () => resolve(signal.reason), { once: true }),
    );

  it("keeps one timer across polls and chunks: a hundred polls set it once", async () => {
    const WATCHDOG = 43_210;
    const setTimeout = vi.spyOn(globalThis, "setTimeout");
    let hung: AbortSignal | undefined;
    const queue = new EventQueue({
      client: fakeClient(async (n, { signal, stream }) => {
        if (n < 100) return stream.take([{ id: n, type: "custom" }]);
        hung = signal;
        await aborted(signal);
      }),
      watchdogMs: WATCHDOG,
    });
    try {
      let seen = 0;
      await queue.start(() => void seen++);
      for (let waited = 0; hung === undefined && waited < 5_000; waited += 10)
        await new Promise((r) => globalThis.setTimeout(r, 10));
      expect(seen).toBe(100);
      const watchdogTimers = setTimeout.mock.calls.filter(([, ms]) => ms === WATCHDOG).length;
      // A timer set per poll and again after each chunk taken made 201 here.
      expect(watchdogTimers).toBe(1);
    } finally {
      setTimeout.mockRestore();
      await queue.halt();
    }
    expect(hung?.aborted).toBe(true);
  });

  it("abandons a hanging poll no sooner than the full time after it began, after a run of quick polls, and never while the sink holds the events", async () => {
    const WATCHDOG = 150;
    let hangStarted = 0;
    let abandoned: { reason: unknown; after: number } | undefined;
    let slowTakeAborted = false;
    const queue = new EventQueue({
      client: fakeClient(async (n, { signal, stream }) => {
        if (n < 20) return stream.take([{ id: n, type: "custom" }]);
        // The sink holds this chunk twice the watchdog's time: the bot's wait, not the server's.
        if (n === 20) {
          await stream.take([{ id: 20, type: "slow" }]);
          slowTakeAborted = signal.aborted;
          return;
        }
        if (n === 21) {
          hangStarted = performance.now();
          const reason = await aborted(signal);
          abandoned = { reason, after: performance.now() - hangStarted };
          throw reason;
        }
        await aborted(signal);
      }),
      watchdogMs: WATCHDOG,
      backoff: { baseMs: 1, capMs: 2 },
    });
    await queue.start(async (events) => {
      if (events[0]!.type === "slow") await new Promise((r) => setTimeout(r, WATCHDOG * 2));
    });
    try {
      for (let waited = 0; abandoned === undefined && waited < 5_000; waited += 10)
        await new Promise((r) => setTimeout(r, 10));
      expect(slowTakeAborted).toBe(false);
      expect(abandoned?.reason).toBeInstanceOf(PollTimeoutError);
      // A timer never fires early; 2 ms for the two clocks' rounding.
      expect(abandoned!.after).toBeGreaterThanOrEqual(WATCHDOG - 2);
    } finally {
      await queue.halt();
    }
  });
});

describe("the poll loop's own cost", () => {
  it("makes at most a few promises per poll whose events the sink takes at once (13 before the hand-over and its callers waited only where there was something to wait for)", async () => {
    let polls = 0;
    let promises = 0;
    let counting = false;
    const hook = createHook({
      init(_id, type) {
        if (counting && type === "PROMISE") promises++;
      },
    });
    let measured!: () => void;
    const finished = new Promise<void>((resolve) => (measured = resolve));
    // A poll that hands its one event on as the transport does (a body small enough to be
    // read whole), answered at once: what the queue itself adds is what is counted.
    const client = queueClient((_, opts) => {
      const n = polls++;
      if (n === 50) counting = true;
      if (n === 150) {
        counting = false;
        measured();
        return new Promise((_resolve, reject) =>
          opts.signal.addEventListener("abort", () => reject(opts.signal.reason)),
        );
      }
      const taking = opts.stream.take([{ id: n, type: "custom" }]);
      return Promise.resolve(taking).then(() => ({ result: "success", msg: "", events: [] }));
    });
    const queue = new EventQueue({ client, watchdogMs: 60_000 });
    let taken = 0;
    hook.enable();
    try {
      await queue.start(() => void taken++);
      await finished;
    } finally {
      hook.disable();
      await queue.halt();
    }
    expect(taken).toBeGreaterThanOrEqual(150);
    // The fake client's own `then` makes 2 of them.
    expect(promises / 100).toBeLessThanOrEqual(6);
  });
});
