// When a replay sends a person's recorded message: before a poll that delivered it, or around a re-registration.
import { describe, expect, it } from "vitest";
import { parseCassette, type CassetteExchange } from "../../src/record/cassette.js";
import { injectAt } from "../../src/record/inject.js";

const header = JSON.stringify({
  type: "cassette",
  version: 1,
  recordedAt: "2026-12-01T00:00:00Z",
  site: "https://server.invalid",
  topicbot: "0.1.0",
  sanitized: true,
  contentHashed: false,
  part: 1,
});

const ok = (body: Record<string, unknown>) => ({
  status: 200,
  body: { result: "success", msg: "", ...body },
});
const register = (queue: string): Partial<CassetteExchange> => ({
  method: "POST",
  path: "/register",
  endpoint: "POST /register",
  ...ok({ queue_id: queue, last_event_id: -1 }),
});
const poll = (queue: string, ids: number[]): Partial<CassetteExchange> => ({
  method: "GET",
  path: "/events",
  endpoint: "GET /events",
  fields: { queue_id: queue, last_event_id: "-1" },
  ...ok({ events: ids.map((id, i) => ({ type: "message", id: i, message: { id } })) }),
});
const fetch = (ids: number[]): Partial<CassetteExchange> => ({
  method: "GET",
  path: "/messages",
  endpoint: "GET /messages",
  fields: { anchor: "4" },
  ...ok({ messages: ids.map((id) => ({ id })) }),
});

/** The cassette's exchanges, and where each message is sent again, as "seq: ids". */
function placements(exchanges: Partial<CassetteExchange>[]): string[] {
  const lines = exchanges.map((x, i) =>
    JSON.stringify({ type: "exchange", seq: i + 1, at: i, ms: 1, fields: {}, ...x }),
  );
  const at = injectAt(parseCassette([header, ...lines].join("\n")));
  return [...at].map(([x, ids]) => `${x.seq}: ${ids.join(",")}`);
}

describe("injectAt", () => {
  it("sends a message before the poll that delivered it", () => {
    expect(placements([register("q:0"), poll("q:0", [1]), poll("q:0", [2, 3])])).toEqual([
      "2: 1",
      "3: 2,3",
    ]);
  });

  it("sends one that only the catch-up fetch showed before the registration (it came with no queue)", () => {
    expect(placements([register("q:0"), poll("q:0", [1]), register("q:1"), fetch([5])])).toEqual([
      "2: 1",
      "3: 5",
    ]);
  });

  it("sends one that the catch-up fetch and the new queue both showed after the registration, before the fetch", () => {
    // Recorded when the person's send came just after the bot registered again: the fetch
    // and the new queue's first poll both hold it (old code: fails, it was sent before the
    // registration, so the replayed queue never delivered it and the event types differed).
    expect(
      placements([
        register("q:0"),
        poll("q:0", [1]),
        register("q:1"),
        fetch([5]),
        poll("q:1", [5, 6]),
      ]),
    ).toEqual(["2: 1", "4: 5", "5: 6"]);
  });

  it("does not count a poll of an older queue as the new one's", () => {
    expect(placements([register("q:0"), register("q:1"), fetch([5]), poll("q:0", [5])])).toEqual([
      "2: 5",
    ]);
  });
});
