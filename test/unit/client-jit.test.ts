// The client's zod validation runs without zod's JIT for an endpoint's first two calls (start-up calls most once), with it from the third.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createClient } from "../../src/client/index.js";
import { apiUser, compiledDuring } from "../helpers/fixtures.js";
import { mockAgentEachTest } from "../helpers/mock-agent.js";

const SITE = "http://chat.test";

describe("createClient validation and zod's JIT", () => {
  const agent = mockAgentEachTest();

  it("validates an endpoint's first two calls without compiling checkers, and compiles them on the third", async () => {
    // zod decides once per process whether it may compile code (its first `new Function`): done here.
    expect(z.object({ a: z.string() }).safeParse({ a: "x" }).success).toBe(true);
    const member = apiUser(3, {
      email: "mia@chat.test",
      full_name: "Mia",
      date_joined: "2024-01-01T00:00:00Z",
    });
    agent()
      .get(SITE)
      .intercept({
        path: (p) => p === "/api/v1/users" || p.startsWith("/api/v1/users?"),
        method: "GET",
      })
      .reply(200, { result: "success", msg: "", members: [member] })
      .times(3);
    const client = createClient({
      site: SITE,
      email: "bot@chat.test",
      apiKey: "KEY123",
      dispatcher: agent(),
    });
    const list = () => client.users.list({ client_extavatar: false });
    let first: Awaited<ReturnType<typeof list>> | undefined;
    expect(await compiledDuring(async () => (first = await list()))).toBe(0);
    // Validated all the same: the response came through the schema.
    expect(first?.members[0]?.full_name).toBe("Mia");
    expect(await compiledDuring(list)).toBe(0);
    expect(await compiledDuring(list)).toBeGreaterThan(0);
    // A malformed answer is still refused on a first call.
    agent()
      .get(SITE)
      .intercept({ path: "/api/v1/users/me", method: "GET" })
      .reply(200, { result: "success", msg: "", user_id: "three" });
    await expect(client.users.me()).rejects.toThrow(/user_id/);
  });
});
