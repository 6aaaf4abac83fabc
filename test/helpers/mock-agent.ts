// A fresh undici MockAgent for each test of a file, with no real network, closed after the test.
import { afterEach, beforeEach } from "vitest";
import { MockAgent } from "undici";

/**
 * Registers the per-test set-up and tear-down of a MockAgent that refuses real connections;
 * returns a getter for the current test's agent.
 *
 * @example
 * const agent = mockAgentEachTest();
 * it("...", () => { agent().get(SITE).intercept({ path: "/api/v1/users/me" }).reply(200, body); });
 */
export function mockAgentEachTest(): () => MockAgent {
  let agent: MockAgent | undefined;
  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
  });
  afterEach(async () => {
    await agent?.close();
    agent = undefined;
  });
  return () => {
    if (!agent) throw new Error("mockAgentEachTest: no test is running");
    return agent;
  };
}
