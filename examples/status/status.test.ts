// A plugin that calls a third-party API, tested with nock: the API is faked, the sandbox is real.
import nock from "nock";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createTestBot, type TestBot } from "topicbot/testing";
import status from "./index.js";

const api = "https://status.example.com";

let t: TestBot;
beforeAll(async () => {
  // No real network from plugins; the harness's own traffic to the sandbox stays on loopback.
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
  t = await createTestBot({
    plugins: [{ plugin: status, settings: { url: `${api}/api/v2/status.json` } }],
  });
});
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});
afterAll(async () => {
  await t.close();
  nock.enableNetConnect();
});

it("reports what the status API says", async () => {
  nock(api)
    .get("/api/v2/status.json")
    .reply(200, {
      page: { name: "Example" },
      status: { indicator: "minor", description: "Partial outage" },
    });
  await t.dialog([["!status", "🟡 **Example**: Partial outage"]]);
});

it("says so when the API fails, and logs it", async () => {
  nock(api).get("/api/v2/status.json").reply(503, "down");
  await t.dialog([["!status", "I could not reach the status page (HTTP 503)."]]);
  expect(t.errors()).toContain("status page unreachable: HTTP 503");
});
